// Integer division or modulo by zero, and MIN / -1, at run time on the CPU
// executor: a located error, never SIGFPE (-D V picks the fault).
// RUN: not %tmc run %s --shape N=64 -D V=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not %tmc run %s --shape N=64 -D V=1 2>&1 | FileCheck %s --check-prefix=MOD
// RUN: not %tmc run %s --shape N=64 -D V=2 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: not %tmc run %s --shape N=64 -D V=3 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not %tmc run %s --shape N=64 -D V=4 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// Divisors that are never zero: no report.
// RUN: %tmc run %s --shape N=64 -D V=5 | FileCheck %s --check-prefix=OK

op copy(X: i32[N]) -> i32[N] { out[i] = X[i]; }

kernel divide<V: int in [0, 1, 2, 3, 4, 5]>(X: i32[N], Y: i32[N]) implements copy grid(cdiv(N, 32)) block(32) {
  let t = blockIdx.x * 32 + threadIdx.x;
  let d = i32(threadIdx.x) - 5;
  var r: i32 = X[t];
  if (V == 0) {
    r = r / d;
  }
  if (V == 1) {
    r = r % d;
  }
  if (V == 2) {
    let low = -2147483647 - i32(blockIdx.x);
    let q = (low - 1) / (d + 4);
    r = q;
  }
  if (V == 3) {
    let w = i64(r) * 4294967296;
    r = i32(w % i64(d));
  }
  if (V == 4) {
    let u = u32(threadIdx.x);
    r = i32(100u / (u - 7u));
  }
  if (V == 5) {
    r = r * (d * d + 1) / (d * d + 1) + (r % i32(threadIdx.x + 1) - r % i32(threadIdx.x + 1));
  }
  Y[t] = r;
}
// DIV: fault_divide.tm:18:{{[0-9]+}}: error: integer division by zero in kernel 'divide' (thread 5 of block (0, 0, 0); 2 times)
// DIV: 1 error generated.
// MOD: fault_divide.tm:21:{{[0-9]+}}: error: integer modulo by zero in kernel 'divide' (thread 5 of block (0, 0, 0); 2 times)
// MIN: fault_divide.tm:25:{{[0-9]+}}: error: integer division by zero in kernel 'divide' (thread 1 of block (0, 0, 0); 2 times)
// MIN: fault_divide.tm:25:{{[0-9]+}}: error: integer division overflows in kernel 'divide': -2147483648 / -1 has no 32-bit result (thread 0 of block (0, 0, 0))
// MIN: 2 errors generated.
// WIDE: fault_divide.tm:30:{{[0-9]+}}: error: integer modulo by zero in kernel 'divide' (thread 5 of block (0, 0, 0); 2 times)
// UNSIGNED: fault_divide.tm:34:{{[0-9]+}}: error: integer division by zero in kernel 'divide' (thread 7 of block (0, 0, 0); 2 times)
// OK: result:     PASS
