#!/usr/bin/env python3
"""usage: same_report.py A B

Compares two run-torch-tidy reports of the same kind (JSON or SARIF): equal
apart from how long the run took and whether a result came from the cache
(the keys 'seconds' and 'cached', and SARIF invocation times). Prints
"identical" or the first difference and exits 1."""
import json
import sys

VOLATILE = {"seconds", "cached", "startTimeUtc", "endTimeUtc"}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def first_difference(a, b, where="$"):
    if type(a) is not type(b):
        return "%s: %r != %r" % (where, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: only in %s" % (where, k, "the first" if k in a else "the second")
            d = first_difference(a[k], b[k], "%s.%s" % (where, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d != %d items" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (where, a, b)


a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
d = first_difference(a, b)
print(d or "identical")
sys.exit(1 if d else 0)
