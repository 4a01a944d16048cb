#!/usr/bin/env python3
"""Refactoring invariance: do torch-tidy's diagnostics survive semantics-preserving rewrites?

Usage:
  bench/metamorphic.py --tool build/bin/torch-tidy --cases DIR|FILE [--cases ...]
                       [--only CHECK] [--transforms T1,T2] [--json OUT] [--table OUT.md]
                       [-j N] [--min-kept P --min-silent P]
  bench/metamorphic.py --tool build/bin/torch-tidy --cases DIR|FILE --baseline-only
                       [--only CHECK] [--json OUT] [-j N]

Cases are C++ files of two kinds:
  * lit tests of test/checks (a `// RUN: %check_torch_tidy %s CHECKS %t -- -- ARGS` line
    against the mock headers): the expected diagnostics are its CHECK-MESSAGES warnings;
  * plain files whose flagged lines end in `// EXPECT: <check-name>` (a file with no marker
    is a negative case; `// ARGS: ...` gives compiler arguments, default
    `-std=c++17 -isystem test/checks/Inputs`, and `// CHECKS: a,b` the checks, default the
    checks of its markers, or torch-* when it has none).

For every case and transformation (bench/metamorphic/Mutate.cpp, built as
build/bin/torch-tidy-mutate, lists them with --list), the rewriter produces a variant of
the case; torch-tidy runs on it. A *unit* is a function defined at namespace scope; the
rewriter marks the units it changed. Scored per check and per transformation:
  * positives kept: expected diagnostics, produced on the unchanged case (the baseline)
    and inside a changed unit, that the variant still reports at the corresponding place
    (the marked line wherever the rewrite moved it, or the call that now runs it);
  * negatives silent: changed units with no expected diagnostic, silent on the baseline,
    that stay silent in the variant.
A variant that does not compile is counted as invalid and not scored (the rewriter's
failure, not the checks').

With --baseline-only, no variant is made (the rewriter is not needed): torch-tidy runs on
each unchanged case, and each check is scored by expectations found / expected (a warning
of that check on the marked line) and false positives (a warning of a torch-* check on a
line with no expectation for that check); each miss and each false positive is listed as
file:line check.

Exit status: 0; 1 when --min-kept/--min-silent are given and not met, or on a crash of
torch-tidy; 2 on bad arguments.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MOCK = os.path.join(ROOT, "test", "checks", "Inputs")

DEFAULT_TRANSFORMS = [
    "extract-value", "extract-cref", "extract-ref", "extract-out",
    "member-function", "class-template", "lambda-in-place", "lambda-std-function",
    "box-struct", "box-pair", "box-tuple", "box-vector", "box-nested-vector", "box-map",
    "alias-reference", "alias-accessor", "if-both-branches", "early-exit",
    "split-declaration", "reorder-functions", "loop-iterator", "loop-while",
    "op-same-class", "rename",
]

DIAG = re.compile(r"^(.*?):(\d+):(\d+): (warning|error): (.*?)(?: \[([\w.,-]+)\])?$")


def die(msg):
    sys.stderr.write("metamorphic.py: error: %s\n" % msg)
    sys.exit(2)


class Case:
    def __init__(self, path, checks, args, tidy_args, expectations):
        self.path = path
        self.checks = checks            # list of check names
        self.args = args                # compiler arguments
        self.tidy_args = tidy_args      # e.g. --config=...
        self.expectations = expectations  # list of (line, check), 1-based


def lit_case(path, text):
    """A lit test of test/checks, or None when it is not a mock-header check test."""
    lines = text.split("\n")
    run = None
    for l in lines:
        m = re.search(r"//\s*RUN:\s*%check_torch_tidy\s+(.*)$", l)
        if m and "%mock_torch" in m.group(1) and "--expect-compiler-errors" not in m.group(1):
            run = m.group(1)
            break
    if run is None:
        return None
    words = shlex.split(run)
    suffix = ""
    pos = []
    rest = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            rest = words[i:]
            break
        if w in ("--check-suffix", "--check-suffixes"):
            suffix = words[i + 1]
            i += 2
            continue
        if w.startswith("--check-suffix"):
            suffix = w.split("=", 1)[1]
        elif not w.startswith("-"):
            pos.append(w)
        i += 1
    if len(pos) < 3:
        return None
    checks = pos[1].split(",")
    tidy_args, args = [], []
    if rest:
        rest = rest[1:]
        if "--" in rest:
            k = rest.index("--")
            tidy_args, args = rest[:k], rest[k + 1:]
        else:
            tidy_args = rest
    sub = {"%mock_torch": MOCK, "%S": os.path.dirname(os.path.abspath(path)),
           "%src_root": ROOT}
    def subst(a):
        for k, v in sub.items():
            a = a.replace(k, v)
        return a
    args = [subst(a) for a in args]
    tidy_args = [subst(a) for a in tidy_args]
    if any("%" in a for a in args + tidy_args):
        return None
    if suffix and "," in suffix:
        return None
    prefix = "CHECK-MESSAGES" + ("-" + suffix if suffix else "")
    pat = re.compile(r"//\s*" + re.escape(prefix) + r":\s*(?::\[\[@LINE([+-]\d+)?\]\]|(?:[^:\s]*):(\d+))"
                     r":\d+:\s*warning:.*?(?:\[([\w.-]+)\])?\s*$")
    exps = []
    for i, l in enumerate(lines):
        m = pat.search(l)
        if not m:
            continue
        if m.group(2):
            line = int(m.group(2))
        else:
            line = i + 1 + int(m.group(1) or 0)
        check = m.group(3) or (checks[0] if len(checks) == 1 else None)
        if check is None:
            # The warning's text names no check: the file's only check it can be.
            continue
        exps.append((line, check))
    if "-std=" not in " ".join(args):
        args = ["-std=c++17"] + args
    return Case(path, checks, args, tidy_args, exps)


def plain_case(path, text):
    lines = text.split("\n")
    exps = []
    args = None
    checks = None
    for i, l in enumerate(lines):
        m = re.search(r"//\s*EXPECT:\s*([\w.,-]+)", l)
        if m:
            for c in m.group(1).split(","):
                exps.append((i + 1, c))
        m = re.match(r"\s*//\s*ARGS:\s*(.*)$", l)
        if m:
            args = shlex.split(m.group(1).replace("%mock_torch", MOCK))
        m = re.match(r"\s*//\s*CHECKS:\s*(.*)$", l)
        if m:
            checks = m.group(1).strip().split(",")
    if args is None:
        args = ["-std=c++17", "-isystem", MOCK]
    if checks is None:
        checks = sorted(set(c for _, c in exps)) or ["torch-*"]
    return Case(path, checks, args, [], exps)


def load_cases(paths, only):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for d, _, fs in os.walk(p):
                if os.path.basename(d) == "Inputs" or "/Inputs/" in d + "/":
                    continue
                files += [os.path.join(d, f) for f in sorted(fs) if f.endswith(".cpp")]
        elif os.path.isfile(p):
            files.append(p)
        else:
            die("no such case file or directory: %s" % p)
    cases = []
    for f in sorted(files):
        text = open(f, encoding="utf-8", errors="replace").read()
        if "RUN:" in text:
            c = lit_case(f, text)
        else:
            c = plain_case(f, text)
        if c is None:
            continue
        if only and not any(only == ch or (ch.endswith("*") and only.startswith(ch[:-1]))
                            for ch in c.checks):
            continue
        if only:
            c.checks = [only]
            c.expectations = [e for e in c.expectations if e[1] == only]
        cases.append(c)
    return cases


def marked_source(case):
    """The case's text with `// EXPECT#id: check` at the end of each expected line; ids."""
    lines = open(case.path, encoding="utf-8", errors="replace").read().split("\n")
    # Lit CHECK lines would be moved about as plain comments; drop them (keeping lines).
    ids = []
    for k, (line, check) in enumerate(case.expectations, 1):
        if 1 <= line <= len(lines):
            lines[line - 1] += " // EXPECT#%d: %s" % (k, check)
            ids.append((k, check))
    out = []
    for l in lines:
        if re.search(r"//\s*(CHECK-MESSAGES|CHECK-NOTES|CHECK-FIXES)", l) and not re.search(
                r"EXPECT#\d+:", l):
            l = re.sub(r"//\s*(CHECK-MESSAGES|CHECK-NOTES|CHECK-FIXES).*$", "", l)
        out.append(l)
    return "\n".join(out), ids


def parse_variant(text):
    """Units (name, changed, first line, last line) and where each marker id sits."""
    units = []
    cur = None
    where = {}  # id -> set of lines (EXPECT and EXPECT-ALT)
    for i, l in enumerate(text.split("\n"), 1):
        m = re.match(r"// @unit (\S+) (changed|same)$", l)
        if m:
            cur = [m.group(1), m.group(2) == "changed", i, None]
            units.append(cur)
        elif l.strip() == "// @end-unit" and cur is not None:
            cur[3] = i
            cur = None
        for m in re.finditer(r"EXPECT(?:-ALT)?#(\d+):", l):
            where.setdefault(int(m.group(1)), set()).add(i)
    for u in units:
        if u[3] is None:
            u[3] = u[2]
    return units, where


def unit_of(units, line):
    for u in units:
        if u[2] <= line <= u[3]:
            return u
    return None


def run_tidy(tool, case, src_path, checks):
    cmd = [tool, "--quiet", "--checks=-*," + ",".join(checks)] + case.tidy_args + [src_path, "--"] + \
        case.args + ["-iquote", os.path.dirname(os.path.abspath(case.path)),
                     "-I", os.path.dirname(os.path.abspath(case.path))]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    crashed = p.returncode < 0 or "Stack dump:" in p.stdout
    diags, errors = [], []
    for l in p.stdout.split("\n"):
        m = DIAG.match(l)
        if not m or os.path.abspath(m.group(1)) != os.path.abspath(src_path):
            continue
        if m.group(4) == "error":
            errors.append(l)
        elif m.group(6) and any(c.startswith("torch-") for c in m.group(6).split(",")):
            diags.append((int(m.group(2)), m.group(6).split(",")[0]))
    return diags, errors, crashed, " ".join(shlex.quote(c) for c in cmd)


def one(args, case, transform, workdir):
    text, ids = marked_source(case)
    base = os.path.join(workdir, "%s.%s" % (os.path.basename(case.path).rsplit(".", 1)[0], transform))
    marked = base + ".in.cpp"
    with open(marked, "w") as f:
        f.write(text)
    variant = base + ".cpp"
    mcmd = [args.mutator, "--transform=" + transform, "-o", variant, marked, "--"] + case.args + [
        "-iquote", os.path.dirname(os.path.abspath(case.path)),
        "-I", os.path.dirname(os.path.abspath(case.path))]
    p = subprocess.run(mcmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    res = {"case": os.path.relpath(case.path, ROOT), "transform": transform, "checks": case.checks}
    if p.returncode == 3:
        res["status"] = "not-applicable"
        return res
    if p.returncode != 0:
        res["status"] = "mutator-failed"
        res["detail"] = p.stdout[-2000:]
        return res
    vtext = open(variant).read()
    units, where = parse_variant(vtext)
    diags, errors, crashed, cmd = run_tidy(args.tool, case, variant, case.checks)
    res["command"] = cmd
    if crashed:
        res["status"] = "crash"
        return res
    if errors:
        res["status"] = "invalid"
        res["detail"] = errors[:3]
        return res
    res["status"] = "ok"
    res["diags"] = diags
    res["units"] = units
    res["where"] = {str(k): sorted(v) for k, v in where.items()}
    res["ids"] = ids
    res["variant"] = variant
    return res


def score(base, var):
    """Per check: positives (kept, total), negatives (silent, total), extra diagnostics."""
    out = {}
    def slot(check):
        return out.setdefault(check, {"pos": 0, "kept": 0, "neg": 0, "silent": 0, "lost": [], "noisy": []})
    # Which expectations the baseline meets.
    met = set()
    bwhere = {int(k): set(v) for k, v in base["where"].items()}
    bdiag = {}
    for line, check in base["diags"]:
        bdiag.setdefault(check, []).append(line)
    for k, check in base["ids"]:
        if any(l in bwhere.get(k, ()) for l in bdiag.get(check, [])):
            met.add(k)
    bunits = {u[0]: u for u in base["units"]}
    noisy_base = set()
    for line, check in base["diags"]:
        u = unit_of(base["units"], line)
        if u:
            noisy_base.add(u[0])
    vwhere = {int(k): set(v) for k, v in var["where"].items()}
    vdiag = {}
    for line, check in var["diags"]:
        vdiag.setdefault(check, []).append(line)
    matched_lines = set()
    # Positives.
    units_with_markers = set()
    for k, check in var["ids"]:
        lines = vwhere.get(k, set())
        us = [unit_of(var["units"], l) for l in lines]
        us = [u for u in us if u]
        for u in us:
            units_with_markers.add(u[0])
        if k not in met or not any(u[1] for u in us):
            continue
        s = slot(check)
        s["pos"] += 1
        hit = [l for l in vdiag.get(check, []) if l in lines]
        if hit:
            s["kept"] += 1
            matched_lines.update((l, check) for l in hit)
        else:
            s["lost"].append(k)
    # Negatives: changed units without markers, silent on the baseline.
    checks = var["checks"]
    for u in var["units"]:
        if not u[1] or u[0] in units_with_markers or u[0] in noisy_base:
            continue
        for check in checks:
            if check.endswith("*"):
                continue
            s = slot(check)
            s["neg"] += 1
            if any(u[2] <= l <= u[3] for l in vdiag.get(check, [])):
                s["noisy"].append(u[0])
            else:
                s["silent"] += 1
    return out


def baseline_one(args, case):
    """The unchanged case through torch-tidy: its diagnostics, or why there are none."""
    diags, errors, crashed, cmd = run_tidy(args.tool, case, case.path, case.checks)
    res = {"case": os.path.relpath(case.path, ROOT), "checks": case.checks, "command": cmd,
           "expectations": case.expectations}
    if crashed:
        res["status"] = "crash"
    elif errors:
        res["status"] = "invalid"
        res["detail"] = errors[:3]
    else:
        res["status"] = "ok"
        res["diags"] = diags
    return res


def baseline_only(a, cases):
    """--baseline-only: per check, expectations found / expected and false positives."""
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        results = list(ex.map(lambda c: baseline_one(a, c), cases))
    elapsed = time.time() - started
    table = {}  # check -> counts
    misses, noisy, details = [], [], []

    def slot(check):
        return table.setdefault(check, {"expected": 0, "found": 0, "fp": 0})
    for r in results:
        for check in r["checks"]:
            if not check.endswith("*"):
                slot(check)
        if r["status"] != "ok":
            details.append(r)
            for line, check in r["expectations"]:
                slot(check)["expected"] += 1
                misses.append((r["case"], line, check, r["status"]))
            continue
        got = set(r["diags"])
        want = set(r["expectations"])
        for line, check in sorted(want):
            s = slot(check)
            s["expected"] += 1
            if (line, check) in got:
                s["found"] += 1
            else:
                misses.append((r["case"], line, check, ""))
        for line, check in sorted(got - want):
            slot(check)["fp"] += 1
            noisy.append((r["case"], line, check))

    def pct(n, d):
        return "%.1f %%" % (100.0 * n / d) if d else "-"
    tot = {"expected": 0, "found": 0, "fp": 0}
    lines = ["| check | found / expected | false positives |", "| --- | ---: | ---: |"]
    for check in sorted(table):
        row = table[check]
        for k in tot:
            tot[k] += row[k]
        lines.append("| %s | %d/%d (%s) | %d |" % (
            check, row["found"], row["expected"], pct(row["found"], row["expected"]), row["fp"]))
    lines.append("| **all** | **%d/%d (%s)** | **%d** |" % (
        tot["found"], tot["expected"], pct(tot["found"], tot["expected"]), tot["fp"]))
    status = {}
    for r in results:
        status[r["status"]] = status.get(r["status"], 0) + 1
    negative = sum(1 for c in cases if not c.expectations)
    summary = "%d cases (%d without expectations), baseline only (%s); %.0f s with -j %d" % (
        len(cases), negative, ", ".join("%s %d" % kv for kv in sorted(status.items())),
        elapsed, a.j)
    print("\n".join(lines))
    print()
    print(summary)
    print()
    for case, line, check, why in misses:
        print("miss: %s:%d %s%s" % (case, line, check, "  (%s)" % why if why else ""))
    for case, line, check in noisy:
        print("false positive: %s:%d %s" % (case, line, check))
    for r in details:
        print("%s: %s %s" % (r["status"], r["case"], " | ".join(r.get("detail", []))), file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": summary, "table": table, "total": tot, "status": status,
                       "misses": misses, "false_positives": noisy, "results": results}, f,
                      indent=1)
    crashes = [r for r in results if r["status"] == "crash"]
    if crashes:
        print("torch-tidy crashed on %d case(s): %s" % (
            len(crashes), ", ".join(r["case"] for r in crashes)), file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="torch-tidy binary")
    ap.add_argument("--mutator", help="torch-tidy-mutate (default: next to --tool)")
    ap.add_argument("--cases", action="append", required=True, help="case file or directory")
    ap.add_argument("--only", help="one check")
    ap.add_argument("--transforms", help="comma-separated (default: all)")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--table", help="write the markdown table here")
    ap.add_argument("--keep", help="keep the variants in this directory")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--min-kept", type=float, help="fail below this %% of positives kept")
    ap.add_argument("--min-silent", type=float, help="fail below this %% of negatives silent")
    ap.add_argument("--show-lost", action="store_true", help="list each lost positive and noisy negative")
    ap.add_argument("--baseline-only", action="store_true",
                    help="run only the unchanged cases: per check, expectations found and false positives")
    a = ap.parse_args()
    if not os.access(a.tool, os.X_OK):
        die("--tool %s is not an executable" % a.tool)
    if a.baseline_only:
        cases = load_cases(a.cases, a.only)
        if not cases:
            die("no cases found")
        return baseline_only(a, cases)
    a.mutator = a.mutator or os.path.join(os.path.dirname(a.tool), "torch-tidy-mutate")
    if not os.access(a.mutator, os.X_OK):
        die("no rewriter at %s (build the torch-tidy-mutate target, or give --mutator)" % a.mutator)
    transforms = a.transforms.split(",") if a.transforms else DEFAULT_TRANSFORMS
    known = subprocess.run([a.mutator, "--list"], stdout=subprocess.PIPE, text=True).stdout
    known = [l.split("\t")[0] for l in known.splitlines()]
    for t in transforms:
        if t not in known:
            die("unknown transformation %r (known: %s)" % (t, ", ".join(known)))
    cases = load_cases(a.cases, a.only)
    if not cases:
        die("no cases found")
    workdir = a.keep or tempfile.mkdtemp(prefix="metamorphic-")
    os.makedirs(workdir, exist_ok=True)
    started = time.time()
    jobs = [(c, t) for c in cases for t in ["identity"] + transforms]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        futs = {ex.submit(one, a, c, t, workdir): (c.path, t) for c, t in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    elapsed = time.time() - started
    table = {}  # check -> transform -> counts
    status = {}
    crashes = []
    details = []
    for c in cases:
        base = results[(c.path, "identity")]
        if base["status"] != "ok":
            status.setdefault("baseline-" + base["status"], 0)
            status["baseline-" + base["status"]] += 1
            details.append(base)
            continue
        for t in transforms:
            r = results[(c.path, t)]
            status[r["status"]] = status.get(r["status"], 0) + 1
            if r["status"] == "crash":
                crashes.append(r)
            if r["status"] != "ok":
                if r["status"] in ("invalid", "mutator-failed", "crash"):
                    details.append(r)
                continue
            for check, s in score(base, r).items():
                row = table.setdefault(check, {}).setdefault(t, {"pos": 0, "kept": 0, "neg": 0, "silent": 0})
                for k in ("pos", "kept", "neg", "silent"):
                    row[k] += s[k]
                if a.show_lost:
                    for k in s["lost"]:
                        print("lost: %s %s #%d  %s" % (t, os.path.relpath(c.path, ROOT), k, r["variant"]))
                    for u in s["noisy"]:
                        print("noisy: %s %s unit %s  %s" % (t, os.path.relpath(c.path, ROOT), u, r["variant"]))
    tot = {"pos": 0, "kept": 0, "neg": 0, "silent": 0}
    by_t = {}
    for check, rows in table.items():
        for t, row in rows.items():
            for k in tot:
                tot[k] += row[k]
                by_t.setdefault(t, dict.fromkeys(tot, 0))[k] += row[k]

    def pct(n, d):
        return "%.1f %%" % (100.0 * n / d) if d else "-"
    lines = ["| check | positives kept | negatives silent |", "| --- | ---: | ---: |"]
    for check in sorted(table):
        p = sum(r["pos"] for r in table[check].values())
        k = sum(r["kept"] for r in table[check].values())
        n = sum(r["neg"] for r in table[check].values())
        s = sum(r["silent"] for r in table[check].values())
        lines.append("| %s | %d/%d (%s) | %d/%d (%s) |" % (check, k, p, pct(k, p), s, n, pct(s, n)))
    lines.append("| **all** | **%d/%d (%s)** | **%d/%d (%s)** |" % (
        tot["kept"], tot["pos"], pct(tot["kept"], tot["pos"]), tot["silent"], tot["neg"],
        pct(tot["silent"], tot["neg"])))
    lines += ["", "| transformation | positives kept | negatives silent |", "| --- | ---: | ---: |"]
    for t in transforms:
        row = by_t.get(t, dict.fromkeys(tot, 0))
        lines.append("| %s | %d/%d (%s) | %d/%d (%s) |" % (
            t, row["kept"], row["pos"], pct(row["kept"], row["pos"]), row["silent"], row["neg"],
            pct(row["silent"], row["neg"])))
    summary = "%d cases, %d transformations, %d variants (%s); %.0f s with -j %d" % (
        len(cases), len(transforms), sum(status.values()),
        ", ".join("%s %d" % kv for kv in sorted(status.items())), elapsed, a.j)
    print("\n".join(lines))
    print()
    print(summary)
    for r in details[:20]:
        print("%s: %s %s" % (r["status"], r["case"], r["transform"]), file=sys.stderr)
    if a.table:
        with open(a.table, "w") as f:
            f.write("\n".join(lines) + "\n\n" + summary + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": summary, "table": table, "total": tot,
                       "by_transform": by_t, "status": status,
                       "results": [results[k] for k in sorted(results)]}, f, indent=1)
    rc = 0
    if crashes:
        print("torch-tidy crashed on %d variant(s): %s" % (
            len(crashes), ", ".join("%s/%s" % (r["case"], r["transform"]) for r in crashes)), file=sys.stderr)
        rc = 1
    if a.min_kept is not None and tot["pos"] and 100.0 * tot["kept"] / tot["pos"] < a.min_kept:
        print("positives kept %s < %.1f %%" % (pct(tot["kept"], tot["pos"]), a.min_kept), file=sys.stderr)
        rc = 1
    if a.min_silent is not None and tot["neg"] and 100.0 * tot["silent"] / tot["neg"] < a.min_silent:
        print("negatives silent %s < %.1f %%" % (pct(tot["silent"], tot["neg"]), a.min_silent), file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
