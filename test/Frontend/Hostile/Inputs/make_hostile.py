#!/usr/bin/env python3
"""Writes hostile inputs for tmc's robustness tests.

usage: make_hostile.py KIND N OUT
  garbage N        4 KB of random bytes (seed N)
  ascii-garbage N  4 KB of random printable ASCII (seed N)
  nul-bytes N      a valid line with NUL bytes in it
  parens N         an expression nested in N parentheses
  unary N          N unary minus signs
  chain N          N additions in one flat expression
  reductions N     N reductions with signed bodies, each the body of the last
  alternating N    N pairs of a signed and a juxtaposed reduction
  members N        N member accesses in a row
  nested-chains N  20 parenthesized chains, each of N additions, one in another
  else-if N        an if / else-if chain N long
  blocks N         N nested blocks
  lines N          a valid file of about N lines
  megabytes N      a valid file of at least N MB
  long-line N      one line of N MB without a newline
"""
import random
import sys


def valid_lines(n):
    out = []
    i = 0
    while len(out) < n:
        out.append(f"func fn{i}(a: f32, b: f32) -> f32 {{")
        for k in range(8):
            out.append(f"  let t{k} = a * {k}.0 + b;")
        out.append("  return a + b + t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7;")
        out.append("}")
        i += 1
    return "\n".join(out) + "\n"


def main():
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(n)
    if kind == "garbage":
        data = bytes(rng.randrange(256) for _ in range(4096))
    elif kind == "ascii-garbage":
        data = "".join(chr(rng.randrange(32, 127)) for _ in range(4096)).encode()
    elif kind == "nul-bytes":
        data = b"let x = 1;\nlet y\x00 = 2;\x00\n"
    elif kind == "parens":
        data = ("let x = " + "(" * n + "1" + ")" * n + ";\n").encode()
    elif kind == "unary":
        data = ("let x = " + "-" * n + "1;\n").encode()
    elif kind == "chain":
        data = ("let x = 1" + " + 1" * n + ";\n").encode()
    elif kind == "reductions":
        data = ("op o(X: f32[N]) -> f32[N] { out[i] = " + "sum(k < 4) - " * n + "X[i]; }\n").encode()
    elif kind == "alternating":
        data = ("op o(X: f32[N]) -> f32[N] { out[i] = " + "sum(k < 4) - max(l < 4) " * n + "X[i]; }\n").encode()
    elif kind == "members":
        data = ("kernel k(X: f32[N]) block(32) { return X" + ".a" * n + "; }\n").encode()
    elif kind == "nested-chains":
        e = "1"
        for _ in range(20):
            e = "(" + e + " + 1" * n + ")"
        data = ("kernel k(X: f32[N]) block(32) { let a = " + e + "; }\n").encode()
    elif kind == "else-if":
        body = "if (x > 0) { }" + " else if (x > 0) { }" * n
        data = ("func f(x: i32) {\n  " + body + "\n}\n").encode()
    elif kind == "blocks":
        data = ("func f() " + "{" * n + "}" * n + "\n").encode()
    elif kind == "lines":
        data = valid_lines(n).encode()
    elif kind == "megabytes":
        text = ""
        block = valid_lines(10000)
        while len(text) < n * 1024 * 1024:
            text += block.replace("func fn", f"func g{len(text)}_")
        data = text.encode()
    elif kind == "long-line":
        data = ("let x = 1 " + "+ 1 " * (n * 1024 * 1024 // 4) + "+").encode()
    else:
        sys.exit("unknown kind " + kind)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
