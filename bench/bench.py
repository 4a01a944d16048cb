#!/usr/bin/env python3
"""Measures what the torch-* checks cost, per translation unit (docs/performance.md).

For each TU that includes <torch/torch.h> -- the examples, the runtime programs and
generated training files 1x, 4x and 16x a typical one -- it reports:
  floor   the parse-only time: clang++ -fsyntax-only with the same flags
  total   torch-tidy's wall time with every torch-* check (--enable-check-profile)
  checks  the summed wall time of the torch-* checks from the profile, and its share of total
  each    every check's own time
The best of --repeat runs is kept for each number. Then it checks the targets: all torch
checks together below --max-share of the run on every TU, and check time growing at most
about linearly with the main file (16x file -> <= 16x check time, with slack --slack).

It also times one long training function (gen_training.py --long, --long-sizes statement
groups in one loop body) and reports each check's growth with the function's size. That
series has no target: the graph checks' dataflow is quadratic in the size of a single
function (docs/performance.md says by how much).

  bench/bench.py --torch-tidy build/bin/torch-tidy [--repeat 3] [--markdown out.md]
Exit status 1 if a target is missed, 2 on bad arguments.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE_LINE = re.compile(r"^\s*(?:[\d.]+\s+\(\s*[\d.]+%\)\s+){3}([\d.]+)\s+\(\s*[\d.]+%\)\s+(torch-[\w-]+)\s*$")


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    return time.perf_counter() - start, proc


def measure(tidy, clangxx, tu, flags, repeat):
    floor = min(timed([clangxx, "-fsyntax-only"] + flags + [tu])[0] for _ in range(repeat))
    best_total, best_checks = None, None
    for _ in range(repeat):
        wall, proc = timed([tidy, "--checks=-*,torch-*", "--enable-check-profile", "--quiet", tu, "--"] + flags)
        if proc.returncode < 0:
            raise SystemExit("bench: torch-tidy crashed on %s" % tu)
        checks = {}
        for line in proc.stdout.splitlines():
            m = PROFILE_LINE.match(line)
            if m:
                checks[m.group(2)] = float(m.group(1))
        if best_total is None or wall < best_total:
            best_total, best_checks = wall, checks
    return floor, best_total, best_checks


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torch-tidy", required=True)
    p.add_argument("--clangxx", default="/usr/lib/llvm-19/bin/clang++")
    p.add_argument("--include", default="/usr/include/torch/csrc/api/include")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--max-share", type=float, default=2.0, help="percent")
    p.add_argument("--slack", type=float, default=1.25, help="allowed factor over linear growth")
    p.add_argument("--sizes", default="1,4,16")
    p.add_argument("--long-sizes", default="25,100",
                   help="statement groups in the long-function series (empty: none)")
    p.add_argument("--markdown", default=None)
    p.add_argument("--generated-only", action="store_true",
                   help="only the generated files (a quick growth check)")
    args = p.parse_args()
    for exe in (args.torch_tidy, args.clangxx):
        if not os.access(exe, os.X_OK):
            sys.stderr.write("bench: not an executable: %s\n" % exe)
            return 2
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        long_sizes = [int(s) for s in args.long_sizes.split(",") if s.strip()]
    except ValueError:
        sys.stderr.write("bench: --sizes and --long-sizes must be comma-separated integers\n")
        return 2
    if args.repeat < 1 or any(s < 1 for s in sizes + long_sizes):
        sys.stderr.write("bench: --repeat and --sizes must be positive\n")
        return 2

    flags = ["-std=c++17", "-isystem", args.include]
    tmp = tempfile.mkdtemp(prefix="torch-tidy-bench-")
    tus = []
    for n in sizes:
        path = os.path.join(tmp, "generated_%dx.cpp" % n)
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_training.py"), str(n)],
                           stdout=f, check=True)
        tus.append(("generated %dx" % n, path, flags))
    for n in long_sizes:
        path = os.path.join(tmp, "long_%d.cpp" % n)
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_training.py"), "--long", str(n)],
                           stdout=f, check=True)
        tus.append(("long function %d" % n, path, flags))
    for path in [] if args.generated_only else sorted(glob.glob(os.path.join(ROOT, "examples", "*", "*.cpp"))):
        tus.append((os.path.relpath(path, ROOT), path, flags))
    for path in [] if args.generated_only else sorted(glob.glob(os.path.join(ROOT, "test", "runtime", "*_test.cpp"))):
        tus.append((os.path.relpath(path, ROOT), path,
                    flags + ["-I", os.path.join(ROOT, "test", "runtime"), "-DTORCH_TIDY_EXAMPLE_NO_MAIN"]))

    rows, failures, all_checks = [], [], set()
    for name, path, fl in tus:
        floor, total, checks = measure(args.torch_tidy, args.clangxx, path, fl, args.repeat)
        all_checks.update(checks)
        summed = sum(checks.values())
        share = 100.0 * summed / total
        rows.append((name, floor, total, summed, share, checks))
        print("%-55s floor %6.2fs  tidy %6.2fs  torch checks %6.3fs (%4.2f%%)" % (name, floor, total, summed, share),
              flush=True)
        if share > args.max_share:
            failures.append("%s: torch checks take %.2f%% of the run (target < %.1f%%)" % (name, share, args.max_share))

    gen = {int(r[0].split()[1][:-1]): r for r in rows if r[0].startswith("generated")}
    growth = []
    if 1 in gen:
        base = max(gen[1][3], 1e-4)
        for n in sorted(gen):
            ratio = gen[n][3] / base
            growth.append((n, gen[n][3], ratio))
            if n > 1 and ratio > n * args.slack:
                failures.append("generated %dx: check time grew %.1fx (target <= ~%dx)" % (n, ratio, n))

    longs = sorted((int(r[0].split()[-1]), r) for r in rows if r[0].startswith("long function"))
    long_growth = []
    if len(longs) > 1:
        n0, r0 = longs[0]
        for n, r in longs[1:]:
            long_growth.append((n0, n, {c: r[5].get(c, 0.0) / max(r0[5].get(c, 0.0), 1e-4)
                                        for c in sorted(all_checks)}))

    checks = sorted(all_checks)
    lines = ["| TU | parse floor (s) | torch-tidy (s) | torch checks (s) | share | " +
             " | ".join(c.replace("torch-", "") for c in checks) + " |",
             "|" + "---|" * (5 + len(checks))]
    for name, floor, total, summed, share, per in rows:
        lines.append("| %s | %.2f | %.2f | %.3f | %.2f%% | %s |" % (
            name, floor, total, summed, share, " | ".join("%.3f" % per.get(c, 0.0) for c in checks)))
    lines.append("")
    lines.append("| generated size | torch checks (s) | growth vs 1x |")
    lines.append("|---|---|---|")
    for n, t, ratio in growth:
        lines.append("| %dx | %.3f | %.1fx |" % (n, t, ratio))
    if long_growth:
        lines.append("")
        lines.append("| long function | " + " | ".join(c.replace("torch-", "") for c in checks) + " |")
        lines.append("|" + "---|" * (1 + len(checks)))
        for n0, n, per in long_growth:
            lines.append("| %d -> %d groups (%.0fx) | %s |" % (
                n0, n, n / n0, " | ".join("%.1fx" % per[c] for c in checks)))
    table = "\n".join(lines)
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    for f in failures:
        print("MISSED: " + f)
    print("targets: %s" % ("missed" if failures else "met"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
