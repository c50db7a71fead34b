"""Turns a tuning-database export into one with tuned variants: each
KERNEL@SHAPE:PARAMS argument becomes a best entry (a copy of that kernel's
first best entry, with that shape and those values); the kernels' other
best entries are dropped.
usage: variants.py EXPORT.json OUT.json KERNEL@SHAPE:PARAMS... (fill@N=64:V=2)"""
import json
import sys

doc = json.load(open(sys.argv[1]))
templates = {}
for e in doc["best"]:
    templates.setdefault(e["kernel"], e)
doc["best"] = []
for spec in sys.argv[3:]:
    kernel, rest = spec.split("@")
    shape, params = rest.split(":")
    doc["best"].append(dict(templates[kernel], shape=shape, params=params))
json.dump(doc, open(sys.argv[2], "w"), indent=1)
