"""The SARIF 2.1.0 report."""

import json
import os
import pathlib
import re
import subprocess
import urllib.parse

from . import common
from .baseline import fingerprint_findings
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
