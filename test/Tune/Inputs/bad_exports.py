#!/usr/bin/env python3
"""bad_exports.py DIR: writes exports with out-of-range values and a
foreign SQLite database into DIR; with --check-foreign, checks that the
foreign database still has only its own table."""
import json
import os
import sqlite3
import sys

d = sys.argv[1]
foreign = os.path.join(d, "foreign.db")
if "--check-foreign" in sys.argv:
    tables = [r[0] for r in sqlite3.connect(foreign).execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    sys.exit(0 if tables == ["notes"] else f"the foreign database was changed: {tables}")

key = {"kernel": "k", "source_hash": "h", "arch": "sm_80", "dtypes": "", "device": "model", "tmc_version": "0.1.0",
       "shape": "N=64", "params": "V=1"}
best = dict(key, metric=1.0, metric_kind="model", created=1)
meas = dict(key, status="ok", metric=1.0, metric_kind="model", registers=8, spill_bytes=0, shared_bytes=0, reason="",
            created=1)


def write(name, best_entries, measurements):
    with open(os.path.join(d, name), "w") as f:
        json.dump({"format": "tmc-tuning-db", "version": 1, "best": best_entries, "measurements": measurements}, f)


write("huge_time.json", [dict(best, created=10 ** 17)], [])
write("negative_metric.json", [], [dict(meas, metric=-5)])
write("odd_kind.json", [dict(best, metric_kind="psychic")], [])
if os.path.exists(foreign):
    os.remove(foreign)
db = sqlite3.connect(foreign)
db.execute("CREATE TABLE notes(text TEXT)")
db.commit()
