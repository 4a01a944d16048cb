#!/usr/bin/env python3
"""usage: sarif_fields.py REPORT.sarif [--fingerprints]

Prints what GitHub code scanning shows of a SARIF report, one line per rule
and per result, for FileCheck:

    run columnKind=<kind> SRCROOT=<uri>
    rule <id> name=<name> precision=<p> severity=<s> tags=<t,...> helpUri=<uri>
      short: <shortDescription>
      full: <fullDescription>
      help: <sections of help.markdown> | text sections: <...>
    result <ruleId> <uri>:<line>:<col> related=<line:col,...> fix=<description> fingerprint=<key>

With --fingerprints, only '<ruleId> <fingerprint>' per result (sorted)."""
import json
import re
import sys

sarif = json.load(open(sys.argv[1], encoding="utf-8"))
run = sarif["runs"][0]
if sys.argv[2:] == ["--fingerprints"]:
    for line in sorted("%s %s" % (r["ruleId"], json.dumps(r.get("partialFingerprints"), sort_keys=True))
                       for r in run["results"]):
        print(line)
    sys.exit(0)
print("run columnKind=%s SRCROOT=%s" % (run.get("columnKind"),
                                        run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get("uri")))
for rule in run["tool"]["driver"]["rules"]:
    p = rule.get("properties", {})
    print("rule %s name=%s precision=%s severity=%s tags=%s helpUri=%s" % (
        rule["id"], rule.get("name"), p.get("precision"), p.get("problem.severity"),
        ",".join(p.get("tags", [])), rule.get("helpUri", "-")))
    print("  short: %s" % rule.get("shortDescription", {}).get("text"))
    print("  full: %s" % rule.get("fullDescription", {}).get("text"))
    help_ = rule.get("help", {})
    print("  help: %s | text sections: %s" % (
        ", ".join(re.findall(r"^## (.*)$", help_.get("markdown", ""), re.M)),
        ", ".join(re.findall(r"^(Why|Fix):$", help_.get("text", ""), re.M))))
for r in run["results"]:
    loc = r["locations"][0]["physicalLocation"]
    reg = loc["region"]
    related = ",".join("%d:%d" % (x["physicalLocation"]["region"]["startLine"],
                                  x["physicalLocation"]["region"].get("startColumn", 0))
                       for x in r.get("relatedLocations", []))
    fix = r.get("fixes", [{}])[0].get("description", {}).get("text", "-")
    print("result %s %s:%d:%d related=%s fix=%s fingerprint=%s" % (
        r["ruleId"], loc["artifactLocation"]["uri"], reg["startLine"], reg.get("startColumn", 0),
        related or "-", fix, ",".join(sorted(r.get("partialFingerprints", {})))))
