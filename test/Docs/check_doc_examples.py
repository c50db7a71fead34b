#!/usr/bin/env python3
"""Checks the code blocks of README.md and docs/*.md, so that the docs cannot
drift from the compiler.

Every fenced block carries an info string:
  ```tm            a complete .tm module: `tmc FILE` must accept it (with
                   --verify-diagnostics when it contains expected-... comments)
  ```tm-fragment   part of a module (elided with `...`, or statements out of
                   context): exempt
  ```c             a complete C program: must compile as C11 with -Wall -Werror
  ```python        Python: must compile (syntax)
  ```sh, ```text   commands and output: not checked
A block without an info string is an error, so a new example cannot slip
in unchecked.

usage: check_doc_examples.py TMC SOURCE_ROOT
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

KNOWN = {"tm", "tm-fragment", "c", "python", "sh", "text"}


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        info, start = m.group(1).strip(), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        yield info, start, "\n".join(lines[start:j]) + "\n"
        i = j + 1


def main():
    tmc, root = sys.argv[1], sys.argv[2]
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    problems, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            rel = os.path.relpath(path, root)
            for info, line, text in blocks(path):
                where = f"{rel}:{line}"
                if info not in KNOWN:
                    problems.append(f"{where}: code block without a known info string ('{info}'); "
                                    f"use one of {', '.join(sorted(KNOWN))}")
                    continue
                if info == "tm":
                    src = os.path.join(tmp, f"block_{checked}.tm")
                    open(src, "w").write(text)
                    cmd = [tmc, src] + (["--verify-diagnostics"] if "expected-" in text else [])
                    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
                    if r.returncode != 0:
                        problems.append(f"{where}: tmc rejects this block:\n{r.stderr}")
                    checked += 1
                elif info == "c":
                    src = os.path.join(tmp, f"block_{checked}.c")
                    open(src, "w").write(text)
                    cmd = ["cc", "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I", root, src]
                    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
                    if r.returncode != 0:
                        problems.append(f"{where}: the C program does not compile:\n{r.stderr}")
                    checked += 1
                elif info == "python":
                    try:
                        compile(text, where, "exec")
                    except SyntaxError as e:
                        problems.append(f"{where}: the Python code does not compile: {e}")
                    checked += 1
    for p in problems:
        print(p)
    print(f"doc examples: {checked} checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
