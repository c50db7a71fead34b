#!/usr/bin/env python3
"""expect_exit.py CODE CMD...: runs CMD, succeeds only if it exits with CODE.

Used by tests of hostile input: tmc must reject it with exit code 1, which
`not` alone does not check (it accepts any failure, even 2 for an internal
error)."""
import subprocess
import sys

code = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if result.returncode != code:
    sys.stderr.write(result.stderr.decode(errors="replace")[-2000:])
    sys.exit(f"expected exit code {code}, got {result.returncode}")
