#!/usr/bin/env python3
"""Reads ctest's output on stdin, passes it through, and prints a table of the time each
part of the test command took just before ctest's closing summary.

  ctest ... | suite_table.py --step configure=12.3 --step build=456.7 [--out table.md]

Every ctest entry gets a row, except that entries sharing a prefix listed with --group
(default: runtime.autofix., runtime., runtime-libtorch2.autofix. and
runtime-libtorch2.; the first prefix that matches) are summed into one row. The table is Markdown,
so docs/performance.md can keep it as printed. ctest's own summary ("NN% tests passed,
...", the label summary, "Total Test time", the lists of failed tests) follows the table.
"""
import argparse
import re
import sys
import time

# "  7/227 Test  #7: lit.tools-runner .......   Passed  136.07 sec"; a parameterised
# GoogleTest name may go on after a space ("... # GetParam() = x ....***Skipped").
RESULT = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+)(.*?)\s+([0-9.]+) sec\s*$")
SUMMARY = re.compile(r"^\d+% tests passed")


def fmt(seconds):
    seconds = float(seconds)
    if seconds >= 60:
        return "%d min %02d s" % (seconds // 60, round(seconds % 60))
    return "%.1f s" % seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--step", action="append", default=[], metavar="NAME=SECONDS",
                   help="a step before ctest (configure, build) and its wall time")
    p.add_argument("--group", action="append", default=None, metavar="PREFIX")
    p.add_argument("--out", help="also write the table to this file")
    args = p.parse_args()
    groups = args.group or ["runtime.autofix.", "runtime.", "runtime-libtorch2.autofix.",
                            "runtime-libtorch2."]
    steps = []
    for step in args.step:
        name, _, seconds = step.partition("=")
        try:
            steps.append((name, float(seconds)))
        except ValueError:
            print("suite_table: --step wants NAME=SECONDS, not %r" % step, file=sys.stderr)
            return 2

    start = time.monotonic()
    rows = {}  # name -> [count, seconds, {status: count}]
    order = []
    held = []
    for line in sys.stdin:
        if held or SUMMARY.match(line):
            held.append(line)
            continue
        sys.stdout.write(line)
        sys.stdout.flush()
        match = RESULT.match(line)
        if not match:
            continue
        name, rest, seconds = match.groups()
        words = rest.replace("*", " ").split()
        status = " ".join(words[-2:]) if words[-2:] == ["Not", "Run"] else (words[-1] if words else "?")
        key = next((g + "*" for g in groups if name.startswith(g)), name)
        if key not in rows:
            rows[key] = [0, 0.0, {}]
            order.append(key)
        row = rows[key]
        row[0] += 1
        row[1] += float(seconds)
        row[2][status] = row[2].get(status, 0) + 1
    ctest_wall = time.monotonic() - start

    lines = ["| part | wall | result |", "| --- | ---: | --- |"]
    for name, seconds in steps:
        lines.append("| %s | %s | |" % (name, fmt(seconds)))
    for key in sorted(order, key=lambda k: (k.startswith("runtime"), k)):
        count, seconds, statuses = rows[key]
        result = ", ".join("%d %s" % (n, s) for s, n in sorted(statuses.items()))
        label = key if count == 1 and not key.endswith("*") else "%s (%d tests, summed)" % (key, count)
        lines.append("| %s | %s | %s |" % (label, fmt(seconds), result))
    lines.append("| ctest, all entries side by side | %s | |" % fmt(ctest_wall))
    total = sum(s for _, s in steps) + ctest_wall
    lines.append("| **total** | **%s** | |" % fmt(total))
    table = "\n".join(lines) + "\n"
    sys.stdout.write("\n==> time of each part (wall clock)\n" + table + "\n")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    sys.stdout.writelines(held)
    return 0


if __name__ == "__main__":
    sys.exit(main())
