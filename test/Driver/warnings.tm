// -Werror turns warnings into errors (exit 1); -w silences them.
// RUN: %tmc %s 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not %tmc %s -Werror 2>&1 | FileCheck %s --check-prefix=WERROR
// RUN: %tmc %s -w 2>&1 | count 0
// WARN: warnings.tm:[[@LINE+5]]:7: warning: unused variable 'x'
// WARN-NEXT: {{^}}  let x = 1;
// WARN-NEXT: {{^}}      ^
// WERROR: warnings.tm:[[@LINE+2]]:7: error: unused variable 'x'
kernel k() block(32) {
  let x = 1;
}
