#!/usr/bin/env python3
"""A mutation fuzzer for the frontend: takes the examples and test inputs,
mutates them (byte flips, token deletion/duplication/swaps, truncation,
splices of two files), runs tmc on each, and fails on any outcome other than
exit code 0 or 1 within the time limit (a crash, an internal error, a hang).

usage: fuzz_frontend.py TMC SEED COUNT CORPUS_DIR... [--save DIR] [--tmc-args "ARGS"]
(--tmc-args "--emit=ptx" fuzzes the whole compiler, not only the frontend)
A failing input is written to DIR (default: the current directory) so that
it can become a regression test.
"""
import os
import random
import re
import subprocess
import sys

TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9A-Za-z_.]*|\S")


def corpus(dirs):
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith(".tm"):
                    files.append(open(os.path.join(root, n), "rb").read())
    return files


def mutate(rng, data, other):
    toks = TOKEN.findall(data) or [b"x"]
    kind = rng.randrange(7)
    if kind == 0 and data:  # flip bytes
        b = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:  # delete tokens
        for _ in range(rng.randrange(1, 6)):
            del toks[rng.randrange(len(toks))]
            if not toks:
                return b""
    elif kind == 2:  # duplicate tokens
        for _ in range(rng.randrange(1, 6)):
            i = rng.randrange(len(toks))
            toks.insert(i, toks[rng.randrange(len(toks))])
    elif kind == 3:  # swap tokens
        for _ in range(rng.randrange(1, 6)):
            i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
    elif kind == 4:  # truncate
        return data[: rng.randrange(len(data) + 1)]
    elif kind == 5:  # splice
        a = rng.randrange(len(data) + 1)
        b = rng.randrange(len(other) + 1)
        return data[:a] + other[b:]
    else:  # replace numbers with extreme ones
        extremes = [b"0", b"-1", b"99999999999", b"2147483648", b"1e308", b"0.0", b"65536"]
        toks = [rng.choice(extremes) if t[:1].isdigit() and rng.random() < 0.5 else t for t in toks]
    return b" ".join(toks)


def main():
    args = sys.argv[1:]
    save = "."
    extra = []
    if "--tmc-args" in args:
        i = args.index("--tmc-args")
        extra = args[i + 1].split()
        del args[i : i + 2]
    if "--save" in args:
        i = args.index("--save")
        save = args[i + 1]
        del args[i : i + 2]
    tmc, seed, count, dirs = args[0], int(args[1]), int(args[2]), args[3:]
    rng = random.Random(seed)
    files = corpus(dirs)
    path = os.path.join(save, f"fuzz-{seed}.tm")
    bad = 0
    for n in range(count):
        data = mutate(rng, rng.choice(files), rng.choice(files))
        with open(path, "wb") as f:
            f.write(data)
        try:
            r = subprocess.run([tmc, path] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
            code = r.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        if code not in (0, 1):
            bad += 1
            keep = os.path.join(save, f"fuzz-{seed}-{n}.tm")
            os.replace(path, keep)
            print(f"case {n}: exit {code}; input kept in {keep}")
            if isinstance(code, int):
                print(r.stderr.decode(errors="replace")[-1500:])
    print(f"{count} cases, {bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
