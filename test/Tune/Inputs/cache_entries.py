#!/usr/bin/env python3
"""cache_entries.py count|corrupt|truncate DIR: counts the compile cache's
entries, flips the last byte of each, or cuts the last 3 bytes of each."""
import os
import sys

action, root = sys.argv[1], sys.argv[2]
entries = []
for d, _, files in os.walk(root):
    entries += [os.path.join(d, f) for f in files if ".tmp." not in f]
if action == "count":
    print(f"{len(entries)} entries")
for path in entries:
    with open(path, "r+b") as f:
        data = f.read()
        if action == "corrupt":
            f.seek(len(data) - 1)
            f.write(bytes([data[-1] ^ 0x5A]))
        elif action == "truncate":
            f.truncate(len(data) - 3)
