"""CodeChecker's checker labels of the torch-* checks: --codechecker-labels DIR
(docs/integration/codechecker.md)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse

from .common import EXIT_CLEAN, InputError, PROG, docs_checks_dir, unwritable

# CodeChecker reads the labels of clang-tidy's checks (doc_url, severity, profile)
# from <its data directory>/config/labels/analyzers/clang-tidy.json, one file per
# analyzer: a second file for the analyzer "clang-tidy" would replace that one, not
# add to it. So the torch-* labels are merged into it (CodeChecker's own
# `checkers --help` says to edit that directory).
#
# Severities as CodeChecker defines them (config/labels/descriptions.json): HIGH,
# "a true positive indicates that the source code will cause a run-time error"
# (these throw, fail a CUDA assertion, or read freed memory); every other torch-*
# check is MEDIUM, "against intuition and hence prone to error" (training goes
# silently wrong or slow).
CODECHECKER_HIGH = {
    "torch-backward-twice-without-retain-graph", "torch-bce-input-out-of-range",
    "torch-class-index-out-of-range", "torch-device-mismatch",
    "torch-from-blob-outlives-buffer", "torch-inplace-on-saved-tensor",
    "torch-load-without-device", "torch-stacked-samples-vary-in-size",
}


def codechecker_labels(tidy, docs_url):
    """{check: [label, ...]} for every torch-* check `tidy -list-checks` registers."""
    try:
        out = subprocess.run([tidy, "-list-checks", "-checks=-*,torch-*"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise InputError("cannot run '%s -list-checks': %s" % (tidy, e))
    checks = sorted(set(line.strip() for line in out.splitlines()
                        if re.fullmatch(r"torch-[a-z0-9-]+", line.strip())))
    if not checks:
        raise InputError("'%s -list-checks -checks=-*,torch-*' lists no torch-* check" % tidy)
    pages = docs_checks_dir()
    labels = {}
    for check in checks:
        page = os.path.join(pages, check + ".md") if pages else None
        if docs_url:
            url = urllib.parse.urljoin(docs_url.rstrip("/") + "/", check + ".md")
        elif page and os.path.isfile(page):
            url = pathlib.Path(os.path.realpath(page)).as_uri()
        else:
            url = None
        labels[check] = (["doc_url:" + url] if url else []) + [
            "profile:default", "profile:extreme", "profile:sensitive",
            "severity:" + ("HIGH" if check in CODECHECKER_HIGH else "MEDIUM")]
    return labels


def write_codechecker_labels(labels_dir, tidy, docs_url):
    path = os.path.join(labels_dir, "analyzers", "clang-tidy.json")
    hint = ("give CodeChecker's labels directory (<venv>/share/codechecker/config/labels for a pip "
            "install; `CodeChecker checkers --help` names it)")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError:
        raise InputError("--codechecker-labels: no %s: %s" % (path, hint))
    except ValueError as e:
        raise InputError("--codechecker-labels: %s is not JSON: %s" % (path, e))
    if not isinstance(data, dict) or data.get("analyzer") != "clang-tidy" or \
            not isinstance(data.get("labels"), dict):
        raise InputError("--codechecker-labels: %s is not CodeChecker's labels file of clang-tidy "
                         "({\"analyzer\": \"clang-tidy\", \"labels\": {...}}): %s" % (path, hint))
    labels = codechecker_labels(tidy, docs_url)
    # The torch-* entries are replaced as a whole: a check no longer registered goes.
    merged = {k: v for k, v in data["labels"].items() if not k.startswith("torch-")}
    merged.update(labels)
    data["labels"] = dict(sorted(merged.items()))
    why = unwritable(path)
    if why:
        raise InputError("--codechecker-labels: %s" % why)
    tmp = path + ".run-torch-tidy.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    sys.stderr.write("%s: wrote the CodeChecker labels of %d torch-* checks into %s\n"
                     % (PROG, len(labels), path))
    return EXIT_CLEAN
