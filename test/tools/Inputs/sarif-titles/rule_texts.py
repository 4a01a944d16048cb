#!/usr/bin/env python3
"""usage: rule_texts.py REPORT.sarif
       rule_texts.py --pages RUN_TORCH_TIDY DOCS_CHECKS_DIR

Prints, per rule of a SARIF report, what its help holds and whether a
description contains markup that is not running text (a table's rows, a
code fence, a heading, a line break):

    <id> table=<bool> code=<bool> text=<bool> markup-in-descriptions=<bool>

With --pages, loads run-torch-tidy as a module (it finds its package,
torch_tidy_runner) and prints, for every check page in DOCS_CHECKS_DIR,
'<check> ok' when its rule's shortDescription and fullDescription are
sentences without markup and it has help.markdown, else
'<check> BAD <shortDescription>'."""
import importlib.machinery
import importlib.util
import json
import os
import sys

FENCE = "`" * 3
MARKUP = ("| --- |", "| operation |", FENCE, "\n", "## ")


def markup(rule):
    return any(m in rule[k]["text"] for k in ("shortDescription", "fullDescription") for m in MARKUP)


if sys.argv[1] == "--pages":
    loader = importlib.machinery.SourceFileLoader("run_torch_tidy", sys.argv[2])
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("run_torch_tidy", loader))
    loader.exec_module(module)  # finds and configures its package, torch_tidy_runner
    sarif_rules = importlib.import_module("torch_tidy_runner.sarif_rules")
    for page in sorted(os.listdir(sys.argv[3])):
        if not page.endswith(".md"):
            continue
        rule = sarif_rules.sarif_rule(page[:-3], "warning", None)
        good = (not markup(rule) and rule["help"]["markdown"]
                and all(rule[k]["text"].endswith(".") for k in ("shortDescription", "fullDescription")))
        print(page[:-3], "ok" if good else "BAD " + rule["shortDescription"]["text"])
    sys.exit(0)

sarif = json.load(open(sys.argv[1], encoding="utf-8"))
for rule in sarif["runs"][0]["tool"]["driver"]["rules"]:
    md = rule.get("help", {}).get("markdown", "")
    print("%s table=%s code=%s text=%s markup-in-descriptions=%s" % (
        rule["id"], "| operation | boundary |" in md, FENCE + "cpp" in md,
        bool(rule.get("help", {}).get("text")), markup(rule)))
