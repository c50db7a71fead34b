#!/usr/bin/env python3
"""Turns tmc output into FileCheck lines (as MLIR's generate-test-checks.py).

  build/bin/tmc t.tm --emit=ast | scripts/generate-test-checks.py >> t.tm

File paths are replaced by a pattern, so the checks do not depend on where
the test runs. Read the result before committing it: checks assert what the
compiler does, which is not always what it should do.
"""
import re
import sys

first = True
for line in sys.stdin.read().splitlines():
    line = re.sub(r'"[^"]*/([^"/]+\.tm)"', r'"{{.*}}\1"', line)
    if not line.strip():
        print("// CHECK-EMPTY:")
        continue
    print(("// CHECK: " if first else "// CHECK-NEXT: ") + line)
    first = False
