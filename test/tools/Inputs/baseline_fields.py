#!/usr/bin/env python3
"""usage: baseline_fields.py REPORT [--fingerprints]

Prints the findings of a run-torch-tidy baseline file, JSON report or SARIF
report, one line each, for FileCheck and diff:

    baseline <file> <check> <fingerprint>          (a --baseline file)
    json <file>:<line> <check> <fingerprint>        (--format=json)
    sarif <uri>:<line> <ruleId> <fingerprint>       (--format=sarif: torchTidyFindingHash/v1)

With --fingerprints, only the fingerprints, sorted (to compare two files)."""
import json
import sys

data = json.load(open(sys.argv[1], encoding="utf-8"))
rows = []
if "runs" in data:
    for r in data["runs"][0]["results"]:
        loc = r["locations"][0]["physicalLocation"]
        rows.append(("sarif %s:%d %s" % (loc["artifactLocation"]["uri"], loc["region"]["startLine"],
                                         r["ruleId"]),
                     r.get("partialFingerprints", {}).get("torchTidyFindingHash/v1", "-")))
elif "diagnostics" in data:
    for d in data["diagnostics"]:
        rows.append(("json %s:%d %s" % (d["file"], d["line"], d["check"]), d.get("fingerprint", "-")))
else:
    for x in data["findings"]:
        rows.append(("baseline %s %s" % (x["file"], x["check"]), x["fingerprint"]))
if sys.argv[2:] == ["--fingerprints"]:
    for fp in sorted(fp for _, fp in rows):
        print(fp)
else:
    for what, fp in rows:
        print(what, fp)
