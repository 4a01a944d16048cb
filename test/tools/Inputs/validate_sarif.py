#!/usr/bin/env python3
"""usage: validate_sarif.py REPORT.sarif

Checks the structure GitHub code scanning and other SARIF 2.1.0 consumers
rely on, then prints one line per result:

    result <ruleId> <level> <uri>:<startLine>:<startColumn> <message>

Exits 1 with the list of problems when the structure is wrong."""
import json
import sys

problems = []


def need(cond, what):
    if not cond:
        problems.append(what)
    return cond


def check_location(loc, where, base_ids):
    pl = loc.get("physicalLocation", {})
    art = pl.get("artifactLocation", {})
    need(isinstance(art.get("uri"), str) and art["uri"], where + ": artifactLocation.uri")
    if "uriBaseId" in art:
        need(art["uriBaseId"] in base_ids, where + ": unknown uriBaseId %s" % art["uriBaseId"])
    region = pl.get("region", {})
    need(isinstance(region.get("startLine"), int) and region["startLine"] >= 1, where + ": region.startLine")
    if "startColumn" in region:
        need(isinstance(region["startColumn"], int) and region["startColumn"] >= 1,
             where + ": region.startColumn")


sarif = json.load(open(sys.argv[1]))
need(sarif.get("version") == "2.1.0", "version must be 2.1.0")
need("sarif" in str(sarif.get("$schema", "")) and "2.1.0" in str(sarif.get("$schema", "")),
     "$schema must name SARIF 2.1.0")
runs = sarif.get("runs")
lines = []
if need(isinstance(runs, list) and runs, "runs must be a non-empty array"):
    for r, run in enumerate(runs):
        driver = run.get("tool", {}).get("driver", {})
        need(isinstance(driver.get("name"), str) and driver["name"], "run %d: tool.driver.name" % r)
        rules = driver.get("rules", [])
        need(isinstance(rules, list), "run %d: tool.driver.rules must be an array" % r)
        ids = [rule.get("id") for rule in rules]
        need(len(ids) == len(set(ids)) and all(isinstance(i, str) and i for i in ids),
             "run %d: rule ids must be unique non-empty strings" % r)
        base_ids = run.get("originalUriBaseIds", {})
        for b, v in base_ids.items():
            need(str(v.get("uri", "")).endswith("/"), "originalUriBaseIds.%s.uri must end with /" % b)
        for i, res in enumerate(run.get("results", [])):
            where = "run %d result %d" % (r, i)
            need(res.get("ruleId") in ids, where + ": ruleId %r is not a rule" % res.get("ruleId"))
            if "ruleIndex" in res:
                need(0 <= res["ruleIndex"] < len(ids) and ids[res["ruleIndex"]] == res.get("ruleId"),
                     where + ": ruleIndex does not point at ruleId")
            need(res.get("level") in ("none", "note", "warning", "error"), where + ": level")
            need(isinstance(res.get("message", {}).get("text"), str) and res["message"]["text"],
                 where + ": message.text")
            locs = res.get("locations", [])
            need(isinstance(locs, list), where + ": locations must be an array")
            for j, loc in enumerate(locs):
                check_location(loc, where + " location %d" % j, base_ids)
            for j, loc in enumerate(res.get("relatedLocations", [])):
                check_location(loc, where + " relatedLocation %d" % j, base_ids)
            if locs:
                pl = locs[0]["physicalLocation"]
                lines.append("result %s %s %s:%s:%s %s" % (
                    res["ruleId"], res["level"], pl["artifactLocation"]["uri"],
                    pl["region"]["startLine"], pl["region"].get("startColumn", "-"),
                    res["message"]["text"]))
if problems:
    print("invalid SARIF:")
    for p in problems:
        print("  " + p)
    sys.exit(1)
print("valid SARIF 2.1.0: %d result(s), rules: %s" % (
    len(lines), ", ".join(rule["id"] for run in runs for rule in run["tool"]["driver"]["rules"])))
for l in sorted(lines):
    print(l)
