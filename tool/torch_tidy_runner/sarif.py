"""The SARIF 2.1.0 report, and --merge-sarif (the shards' reports as one)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse

from . import common
from .baseline import fingerprint_findings
from .common import InputError
from .fixes import fix_title, parse_fix_block
from .reports import SourceLines, rel
from .sarif_rules import sarif_rule, with_period

# What GitHub code scanning and Microsoft's SARIF validator (sarif-multitool,
# --rule-kind "Sarif;Gh") ask for: rules with one-sentence shortDescription,
# fullDescription and help (text and markdown) taken from the check's docs page,
# results with percent-encoded URIs relative to SRCROOT, columns in the declared
# unit (UTF-16 code units; clang's columns are bytes), notes as relatedLocations,
# fix-its as fixes, and partialFingerprints that do not depend on line numbers.


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_COLUMN_KIND = "utf16CodeUnits"


def driver_version(tidy):
    """torch-tidy's version for SARIF's tool.driver: VERSION (project(VERSION)
    in CMakeLists.txt), else what `torch-tidy --version` says; None if neither
    knows."""
    if re.match(r"\d+(\.\d+)*$", common.VERSION):
        return common.VERSION
    try:
        out = subprocess.run([tidy, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=60).stdout if tidy else ""
    except (OSError, subprocess.SubprocessError):
        out = ""
    m = re.search(r"torch-tidy version (\d+(?:\.\d+)*)", out)
    return m.group(1) if m else None


def sarif_report(diags, root, tidy_version, fix_blocks, docs_url, tidy=None):
    src = SourceLines()
    root_uri = pathlib.Path(root).as_uri().rstrip("/") + "/"

    def artifact(path):
        r = rel(path, root)
        if os.path.isabs(r):
            return {"uri": pathlib.Path(r).as_uri()}
        return {"uri": urllib.parse.quote(r.replace(os.sep, "/")), "uriBaseId": "SRCROOT"}

    def region(path, line, byte_col):
        reg = {"startLine": max(line, 1)}
        if byte_col:
            reg["startColumn"] = src.column(path, line, byte_col)
        return reg

    def location(x):
        return {"physicalLocation": {"artifactLocation": artifact(x["file"]),
                                     "region": region(x["file"], x["line"], x["column"])}}

    fixes = {}
    for block in fix_blocks:
        check, message, file, offset, reps = parse_fix_block(block)
        if not (check and file and reps):
            continue
        line, col = src.position(file, offset)
        fixes.setdefault((check, os.path.normpath(file), line, col, message), reps)

    def sarif_fix(check, reps):
        by_file, edits = {}, []
        for file, off, length, text in sorted(reps, key=lambda r: (r[0], r[1])):
            l1, c1 = src.position(file, off)
            l2, c2 = src.position(file, off + length)
            deleted = {"startLine": l1, "startColumn": src.column(file, l1, c1),
                       "endLine": l2, "endColumn": src.column(file, l2, c2)}
            by_file.setdefault(file, []).append({"deletedRegion": deleted,
                                                 "insertedContent": {"text": text}})
            edits.append((src.text(file, off, length), text))
        title = fix_title(check, edits)
        return {"description": {"text": with_period(title[:1].upper() + title[1:])},
                "artifactChanges": [{"artifactLocation": artifact(f), "replacements": r}
                                    for f, r in by_file.items()]}

    rules, index, results, seen = [], {}, [], {}
    for d in diags:
        rid = d["check"] or ("clang-diagnostic-%s" % d["level"])
        level = {"warning": "warning", "error": "error", "remark": "note"}.get(d["level"], "warning")
        if rid not in index:
            index[rid] = len(rules)
            rules.append(sarif_rule(rid, "error" if level == "error" else "warning", docs_url))
        res = {"ruleId": rid, "ruleIndex": index[rid], "level": level,
               "message": {"text": with_period(d["message"])}}
        res["locations"] = [location(d)] if d["file"] else []
        related = [dict(location(n), id=i + 1, message={"text": with_period(n["message"])})
                   for i, n in enumerate(d["notes"]) if n["file"]]
        if related:
            res["relatedLocations"] = related
        if d["file"]:
            reps = fixes.get((d["check"], d["file"], d["line"], d["column"], d["message"]))
            if reps:
                res["fixes"] = [sarif_fix(d["check"], reps)]
            # Stable across edits elsewhere in the file: no line numbers, the
            # flagged line's text instead, and a count for identical findings; the
            # fingerprint --baseline records (fingerprint_findings, set by report()
            # on the whole report before --baseline and --diff hide findings).
            if "fingerprint" not in d:
                fingerprint_findings(diags, root)
            res["partialFingerprints"] = {"torchTidyFindingHash/v1": d["fingerprint"]}
        results.append(res)
    driver = {"name": "torch-tidy"}
    v = driver_version(tidy)
    if v:  # VERSION, or torch-tidy's own; never a placeholder
        driver.update({"version": v, "semanticVersion": ".".join((v.split(".") + ["0", "0"])[:3]),
                       "fullName": "torch-tidy %s (LLVM %s)" % (v, tidy_version)})
    else:
        driver["fullName"] = "torch-tidy (LLVM %s)" % tidy_version
    driver["rules"] = rules
    # torch-tidy is clang-tidy with the torch module; the user's docs base URL
    # (the torch-tidy checkout they use) says more when given.
    driver["informationUri"] = docs_url or "https://clang.llvm.org/extra/clang-tidy/"
    return json.dumps({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {"SRCROOT": {"uri": root_uri}},
            "columnKind": SARIF_COLUMN_KIND,
            "results": results,
        }],
    }, indent=2, ensure_ascii=False) + "\n"


# --- --merge-sarif: the shards' reports as one ---------------------------------------

CHECKLESS_RULES = tuple("clang-diagnostic-%s" % level for level in ("warning", "error", "remark", "note"))


def result_order(result, roots):
    """A result's place in an unsharded report: (file, line, column, check,
    message), as unique_diagnostics sorts them (columns in UTF-16 units keep the
    order of clang's byte columns within a line)."""
    path, line, column = "", 0, 0
    locations = result.get("locations") or []
    if locations:
        physical = locations[0].get("physicalLocation", {})
        art = physical.get("artifactLocation", {})
        uri = urllib.parse.unquote(art.get("uri", ""))
        if art.get("uriBaseId") in roots:
            path = roots[art["uriBaseId"]] + uri
        else:
            path = urllib.parse.unquote(urllib.parse.urlsplit(art.get("uri", "")).path)
        region = physical.get("region", {})
        line, column = region.get("startLine", 0), region.get("startColumn", 0)
    rule = result.get("ruleId", "")
    check = "" if rule in CHECKLESS_RULES else rule
    return (path, line, column, check, result.get("message", {}).get("text", ""))


def merge_sarif(reports):
    """One SARIF report of several reports of the same tool and source root (the
    shards'): one run, each result once (a header's finding seen by files of two
    shards), in the order of an unsharded report, the rules in the order of their
    first result."""
    runs = []
    for name, data in reports:
        if not (isinstance(data, dict) and data.get("version") == "2.1.0"
                and isinstance(data.get("runs"), list) and len(data["runs"]) == 1):
            raise InputError("--merge-sarif: '%s' is not a SARIF 2.1.0 report with one run" % name)
        runs.append((name, data["runs"][0]))
    first_name, first = runs[0]
    for name, run in runs[1:]:
        for key in ("originalUriBaseIds", "columnKind"):
            if run.get(key) != first.get(key):
                raise InputError("--merge-sarif: '%s' and '%s' differ in %s" % (first_name, name, key))
        a, b = run["tool"]["driver"], first["tool"]["driver"]
        if (a.get("name"), a.get("version")) != (b.get("name"), b.get("version")):
            raise InputError("--merge-sarif: '%s' and '%s' come from different tools" % (first_name, name))
    roots = {k: urllib.parse.unquote(urllib.parse.urlsplit(v.get("uri", "")).path)
             for k, v in (first.get("originalUriBaseIds") or {}).items()}
    rules, results, seen = {}, [], set()
    for _, run in runs:
        driver_rules = run["tool"]["driver"].get("rules", [])
        for r in driver_rules:
            rules.setdefault(r["id"], r)
        for res in run.get("results", []):
            key = json.dumps({k: v for k, v in res.items() if k not in ("ruleIndex", "partialFingerprints")},
                             sort_keys=True)
            if key not in seen:
                seen.add(key)
                results.append(res)
    results.sort(key=lambda r: result_order(r, roots))
    order = []
    for res in results:
        if res["ruleId"] not in order:
            order.append(res["ruleId"])
        res["ruleIndex"] = order.index(res["ruleId"])
    merged = dict(first)
    merged["tool"] = {"driver": dict(first["tool"]["driver"], rules=[rules[r] for r in order])}
    merged["results"] = results
    out = reports[0][1]
    return json.dumps(dict(out, runs=[merged]), indent=2, ensure_ascii=False) + "\n"


def merge_sarif_files(output, inputs, quiet=False):
    """--merge-sarif OUT IN...: writes the merged report."""
    reports = []
    for path in inputs:
        try:
            with open(path, encoding="utf-8") as f:
                reports.append((path, json.load(f)))
        except (OSError, UnicodeDecodeError) as e:
            raise InputError("--merge-sarif: cannot read '%s': %s" % (path, getattr(e, "strerror", None) or e))
        except ValueError as e:
            raise InputError("--merge-sarif: '%s' is not valid JSON: %s" % (path, e))
    text = merge_sarif(reports)
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise InputError("--merge-sarif: cannot write '%s': %s" % (output, e.strerror))
    if not quiet:
        n = len(json.loads(text)["runs"][0]["results"])
        sys.stderr.write("%s: %d report%s merged into %s: %d result%s\n" % (
            common.PROG, len(inputs), "" if len(inputs) == 1 else "s", output, n, "" if n == 1 else "s"))
    return common.EXIT_CLEAN
