#!/usr/bin/env python3
"""Runs tmc's whole test suite and prints one summary line.

1. lit over test/ (lit + FileCheck tests of every stage) and test/unit
   (each GoogleTest case as a lit test), with results in JSON;
2. the diagnostic-coverage check: every kind registered in
   support/diagnostic_kinds.def must have been emitted by some test.

Usage: run_tests.py BUILD_DIR [extra lit arguments]
"""
import json
import os
import re
import subprocess
import sys

LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"
PASS = {"PASS", "XFAIL"}
SKIP = {"UNSUPPORTED"}


def registered_kinds(source_dir):
    text = open(os.path.join(source_dir, "support", "diagnostic_kinds.def")).read()
    return re.findall(r"^TMC_DIAG\((\w+),", text, re.M)


def main():
    build = os.path.abspath(sys.argv[1])
    extra = sys.argv[2:]
    source_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    log = os.path.join(build, "test", "diagnostic-kinds.log")
    results = os.path.join(build, "test", "lit-results.json")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, TMC_DIAGNOSTIC_LOG=log)
    cmd = [sys.executable, LIT, "-sv", "-o", results,
           os.path.join(build, "test"), os.path.join(build, "test", "unit")] + extra
    subprocess.run(cmd, env=env)
    try:
        tests = json.load(open(results))["tests"]
    except (OSError, ValueError, KeyError):
        print("tests: 0 passed, 1 failed (lit produced no results)")
        return 1
    passed = sum(t["code"] in PASS for t in tests)
    skipped = sum(t["code"] in SKIP for t in tests)
    failed = [t["name"] for t in tests if t["code"] not in PASS | SKIP]

    # Coverage only means something when the whole suite ran.
    if not extra:
        seen = set(open(log).read().split()) if os.path.exists(log) else set()
        untested = [k for k in registered_kinds(source_dir) if k not in seen]
        if untested:
            failed.append("diagnostic-coverage")
            print("diagnostic kinds that no test emits (add a test under test/):")
            for k in untested:
                print("  " + k)
        else:
            passed += 1
    for name in failed:
        print("FAILED: " + name)
    print(f"tests: {passed} passed, {len(failed)} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
