#!/usr/bin/env python3
"""usage: compare_reports.py WITHOUT_PCH.json WITH_PCH.json

Compares the diagnostics of two run-torch-tidy JSON reports of the same
project, one run without and one with the precompiled header. Prints a
summary; exits 1 and prints the differences when they are not identical, or
when the second run did not use a precompiled header at all."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("diagnostics: %d without PCH, %d with PCH" % (len(a["diagnostics"]), len(b["diagnostics"])))
print("files with PCH: %d and %d of %d" % (a["summary"]["filesWithPch"], b["summary"]["filesWithPch"],
                                          b["summary"]["files"]))
status = 0
if a["diagnostics"] != b["diagnostics"]:
    status = 1
    for d in a["diagnostics"]:
        if d not in b["diagnostics"]:
            print("only without PCH:", json.dumps(d))
    for d in b["diagnostics"]:
        if d not in a["diagnostics"]:
            print("only with PCH:", json.dumps(d))
else:
    print("identical")
if b["summary"]["filesWithPch"] == 0:
    print("error: the second run used no precompiled header")
    status = 1
sys.exit(status)
