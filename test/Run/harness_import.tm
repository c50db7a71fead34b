// tmc run finds a kernel in an imported module, and runs a library file
// (whose op comes from its own import) directly.
// RUN: %tmc run %s -I %S/Inputs --kernel relu_rows --shape R=3,C=100 | FileCheck %s
// RUN: %tmc run %S/Inputs/scale_kernels.tm --shape R=5,C=7 | FileCheck %s
// RUN: not %tmc run %s -I %S/Inputs --kernel nope --shape R=3,C=100 2>&1 | FileCheck %s --check-prefix=NONE
import scale_kernels;

// CHECK: kernel:     relu_rows
// CHECK: result: {{ *}}PASS
// NONE: tmc: error: no kernel 'nope' (the file and its imports have relu_rows)
