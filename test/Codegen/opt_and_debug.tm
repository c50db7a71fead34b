// -O0..-O1 choose LLVM's pipelines, -O2/-O3 tmc's (O3 by default); -lineinfo puts the .tm
// lines in the PTX (.file/.loc, no DWARF sections, as nvcc -lineinfo);
// -g adds full DWARF. Every variant assembles.
// RUN: %tmc %s --emit=llvm -O0 | FileCheck %s --check-prefix=O0
// RUN: %tmc %s --emit=llvm | FileCheck %s --check-prefix=O3
// RUN: %tmc %s --emit=llvm -O3 | FileCheck %s --check-prefix=O3
// --emit=llvm keeps the values' names (tools/tmc/emit.cpp drops them only
// when no one reads the LLVM IR).
// O0: define ptx_kernel void @sum_erf({{.*}} %X, {{.*}} %Y, i32 %N)
// O0: %acc = alloca float
// O3: define ptx_kernel void @sum_erf({{.*}} %X, {{.*}} %Y, i32 %N)
// O3-NOT: alloca
// RUN: %tmc %s --emit=ptx -lineinfo | FileCheck %s --check-prefix=LINE
// RUN: %tmc %s --emit=ptx -g | FileCheck %s --check-prefix=DWARF
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=NONE
// RUN: %if ptxas %{ %tmc %s --emit=ptx -O0 -g | %ptxas-verify sm_80 %}
// RUN: %if ptxas %{ %tmc %s --emit=ptx -O1 -lineinfo --arch=sm_90a | %ptxas-verify sm_90a %}
// RUN: %if ptxas %{ %tmc %s --emit=ptx -O2 | %ptxas-verify sm_80 %}

kernel sum_erf(X: f32[N], Y: f32[1]) block(32) {
  var acc = 0.0;
  for i in range(N) {
    acc += erf(X[i]);
  }
  Y[0] = acc;
}
// LINE: .loc 1 [[#@LINE-4]] 5
// LINE: .loc 1 [[#@LINE-3]] 3
// LINE-NOT: .debug_info
// LINE: .file 1 "{{/.*}}/Codegen/opt_and_debug.tm"
// LINE-NOT: .debug_info
// DWARF: .version 7.5
// DWARF: .loc 1 [[#@LINE-10]] 5
// DWARF: .file 1 "{{/.*}}/Codegen/opt_and_debug.tm"
// DWARF: .section .debug_info
// NONE-NOT: .loc
// NONE-NOT: .file
