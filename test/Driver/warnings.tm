// Warnings name their flag, as clang's do; -Werror turns them into errors
// (exit 1), -w silences them all and -Wno-FLAG one of them. A count of
// warnings and errors ends the output.
// RUN: %tmc %s 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not %tmc %s -Werror 2>&1 | FileCheck %s --check-prefix=WERROR
// RUN: %tmc %s -w 2>&1 | count 0
// RUN: %tmc %s -Wno-unused-variable 2>&1 | FileCheck %s --check-prefix=WNO
// WARN: warnings.tm:[[@LINE+14]]:3: warning: expression result unused [-Wexpr-result-unused]
// WARN: warnings.tm:[[@LINE+12]]:7: warning: unused variable 'x' [-Wunused-variable]
// WARN-NEXT: {{^}}  let x = 1;
// WARN-NEXT: {{^}}      ^
// WARN-NEXT: 2 warnings generated.
// WERROR: error: expression result unused [-Werror,-Wexpr-result-unused]
// WERROR: warnings.tm:[[@LINE+7]]:7: error: unused variable 'x' [-Werror,-Wunused-variable]
// WERROR: 2 errors generated.
// WNO-NOT: unused variable
// WNO: warning: expression result unused [-Wexpr-result-unused]
// WNO-NEXT: {{^}}  1 + 2;
// WNO: 1 warning generated.
kernel k() block(32) {
  let x = 1;
  1 + 2;
}

// RUN: printf 'kernel k() block(32) {\n  let y = 1;\n  let z = q;\n}\n' > %t.mixed.tm
// RUN: not %tmc %t.mixed.tm 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: 1 warning and 1 error generated.
// RUN: printf 'kernel k() block(32) {\n  let y = 1;\n  let z = q + r;\n}\n' > %t.mixed2.tm
// RUN: not %tmc %t.mixed2.tm 2>&1 | FileCheck %s --check-prefix=MIXED2
// MIXED2: 1 warning and 2 errors generated.

// Colour: clang's escape sequences with -fcolor-diagnostics; none when
// standard error is not a terminal or with -fno-color-diagnostics.
// RUN: not %tmc %t.mixed.tm -fcolor-diagnostics 2>&1 | FileCheck %s --check-prefix=COLOR
// COLOR: {{.}}[1m{{.*}}mixed.tm:3:11: {{.}}[0m{{.}}[0;1;31merror: {{.}}[0m{{.}}[1muse of undeclared identifier 'q'{{.}}[0m
// COLOR: {{.}}[0;1;32m^{{.}}[0m
// COLOR: {{.}}[0;1;35mwarning: {{.}}[0m{{.}}[1munused variable 'y' [-Wunused-variable]{{.}}[0m
// RUN: not %tmc %t.mixed.tm 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not %tmc %t.mixed.tm -fcolor-diagnostics -fno-color-diagnostics 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: [0m
