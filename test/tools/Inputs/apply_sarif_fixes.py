#!/usr/bin/env python3
"""usage: apply_sarif_fixes.py REPORT.sarif

Applies every result's first fix (artifactChanges/replacements) to the files
under the run's SRCROOT, reading regions in the run's columnKind, as a SARIF
consumer would. Independent of run-torch-tidy's own code."""
import json
import sys
import urllib.parse

sarif = json.load(open(sys.argv[1], encoding="utf-8"))
run = sarif["runs"][0]
kind = run.get("columnKind", "utf16CodeUnits")
root = urllib.parse.urlsplit(run["originalUriBaseIds"]["SRCROOT"]["uri"])
root_path = urllib.parse.unquote(root.path)


def offset(lines, line, column):
    """Character index in the file of a (line, column) in the declared unit."""
    start = sum(len(l) for l in lines[:line - 1])
    text = lines[line - 1]
    if kind == "unicodeCodePoints":
        return start + column - 1
    units = 0
    for i, ch in enumerate(text):
        if units >= column - 1:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(text)


edits = {}
for res in run["results"]:
    for change in (res.get("fixes") or [{}])[0].get("artifactChanges", []):
        loc = change["artifactLocation"]
        path = root_path + urllib.parse.unquote(loc["uri"]) if loc.get("uriBaseId") == "SRCROOT" \
            else urllib.parse.unquote(urllib.parse.urlsplit(loc["uri"]).path)
        edits.setdefault(path, []).extend(change["replacements"])
for path, reps in edits.items():
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().splitlines(keepends=True)
    spans = []
    for r in reps:
        d = r["deletedRegion"]
        a = offset(lines, d["startLine"], d["startColumn"])
        b = offset(lines, d["endLine"], d["endColumn"])
        spans.append((a, b, r.get("insertedContent", {}).get("text", "")))
    text = "".join(lines)
    for a, b, new in sorted(set(spans), reverse=True):
        text = text[:a] + new + text[b:]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    print("fixed %s: %d edit(s)" % (path, len(set(spans))))
