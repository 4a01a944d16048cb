#!/usr/bin/env python3
"""Measures run-torch-tidy's result cache on a LibTorch project (docs/performance.md).

The project: N generated training files (gen_training.py; a third of them also
include one project header, include/common.h) plus a copy of every
examples/*/buggy.cpp, with a compile_commands.json as CMake writes it for
find_package(Torch) and `Checks: '-*,torch-*,clang-diagnostic-*'`. Four states
of it, in order:

  cold       the first run, with an empty cache
  unchanged  the same files again
  header     after an edit of include/common.h (included by a third of the files)
  source     after an edit of one source file

In each state it times (wall, and CPU of all child processes) run-torch-tidy with
the cache, run-torch-tidy --no-cache (whose report is the reference) and
run-clang-tidy-<major> -load lib/libTorchTidy.so, and asserts that the cached
run's diagnostics and exit status are those of the uncached run. Exit status 1
when they differ or when the unchanged re-run is not --target times faster (wall)
than the cold run; 2 on bad arguments.

  bench/cache_bench.py --build build [-n 20] [-j 2] [--markdown out.md] [--keep DIR]
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBTORCH = "/usr/include/torch/csrc/api/include"
COMMON_H = """// A project header included by a third of the generated files.
#pragma once
#include <torch/torch.h>

inline torch::Tensor bench_scale(const torch::Tensor &x, double factor) {
  return x * factor;
}
"""


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, cwd, env=None):
    cpu0, t0 = cpu_of_children(), time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", env=env)
    return time.perf_counter() - t0, cpu_of_children() - cpu0, p


def make_project(dest, n):
    os.makedirs(os.path.join(dest, "src"))
    os.makedirs(os.path.join(dest, "include"))
    os.makedirs(os.path.join(dest, "build"))
    with open(os.path.join(dest, "include", "common.h"), "w") as f:
        f.write(COMMON_H)
    files = []
    for i in range(n):
        text = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_training.py"), "1"],
                              stdout=subprocess.PIPE, text=True, check=True).stdout
        text = text.replace("Net0", "Net%d" % i).replace("_0(", "_%d(" % i)
        if i % 3 == 0:
            text = text.replace("#include <vector>\n", "#include <vector>\n\n#include \"common.h\"\n", 1)
        path = os.path.join(dest, "src", "train_%02d.cpp" % i)
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
    for ex in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "buggy.cpp"))):
        path = os.path.join(dest, "src", "%s.cpp" % os.path.basename(os.path.dirname(ex)))
        shutil.copyfile(ex, path)
        files.append(path)
    db = [{"directory": os.path.join(dest, "build"), "file": p,
           "arguments": ["/usr/bin/c++", "-D_GLIBCXX_USE_CXX11_ABI=1", "-I" + os.path.join(dest, "include"),
                         "-isystem", LIBTORCH, "-O2", "-DNDEBUG", "-Wall", "-std=gnu++17",
                         "-o", "CMakeFiles/app.dir/%s.o" % os.path.basename(p), "-c", p]} for p in files]
    with open(os.path.join(dest, "build", "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=2)
    with open(os.path.join(dest, ".clang-tidy"), "w") as f:
        f.write("Checks: '-*,torch-*,clang-diagnostic-*'\n")
    return files


def rct_diagnostics(text):
    """(file, line, column, check) of run-clang-tidy's warnings and errors, each once."""
    rx = re.compile(r"^(/[^:]+):(\d+):(\d+): (warning|error): .*\[([^\]]+)\]$")
    return sorted({(m.group(1), int(m.group(2)), int(m.group(3)), m.group(5).split(",")[0])
                   for m in map(rx.match, text.splitlines()) if m})


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="torch-tidy build directory")
    p.add_argument("-n", type=int, default=20, help="generated files (default 20)")
    p.add_argument("-j", type=int, default=2, help="parallel runs (default 2)")
    p.add_argument("--target", type=float, default=20.0, help="unchanged vs cold speed-up (default 20)")
    p.add_argument("--no-run-clang-tidy", action="store_true", help="do not time run-clang-tidy")
    p.add_argument("--markdown", help="write the table to this file")
    p.add_argument("--keep", metavar="DIR", help="make the project in DIR (must not exist) and keep it")
    args = p.parse_args()
    runner = os.path.join(args.build, "bin", "run-torch-tidy")
    plugin = os.path.join(args.build, "lib", "libTorchTidy.so")
    rct = shutil.which("run-clang-tidy-19")
    for path in (runner, os.path.join(args.build, "bin", "torch-tidy"), plugin):
        if not os.path.exists(path):
            sys.stderr.write("cache_bench: %s not found (build torch-tidy first)\n" % path)
            return 2
    if args.n < 3 or args.j < 1:
        sys.stderr.write("cache_bench: -n must be at least 3 and -j positive\n")
        return 2
    if args.keep and os.path.exists(args.keep):
        sys.stderr.write("cache_bench: --keep %s: already exists\n" % args.keep)
        return 2
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="torch-tidy-cache-bench-")
    proj = os.path.join(work, "project")
    files = make_project(proj, args.n)
    cache = os.path.join(work, "cache")
    env = dict(os.environ)
    env.pop("TORCH_TIDY_NO_CACHE", None)
    base = [sys.executable, runner, "-p", "build", "-j", str(args.j), "--format=json", "--exit-zero"]

    def edit_header():
        with open(os.path.join(proj, "include", "common.h"), "a") as f:
            f.write("\ninline torch::Tensor bench_shift(const torch::Tensor &x) { return x + 1; }\n")

    def edit_source():
        with open(files[1], "a") as f:
            f.write("\ndouble bench_edit() { return 1.0; }\n")

    states = [("cold", None), ("unchanged", None), ("header", edit_header), ("source", edit_source)]
    rows, failures = [], []
    for name, change in states:
        if change:
            change()
        out = os.path.join(work, name)
        wall_c, cpu_c, pc = timed(base + ["--cache", "--cache-dir", cache, "-v", "-o", out + "-cached.json"],
                                  proj, env)
        wall_u, cpu_u, pu = timed(base + ["--no-cache", "-o", out + "-uncached.json"], proj, env)
        row = {"state": name, "cached": (wall_c, cpu_c), "uncached": (wall_u, cpu_u)}
        hits = len(re.findall(r": cache hit", pc.stderr))
        misses = len(re.findall(r": cache miss", pc.stderr))
        row["hits"], row["misses"] = hits, misses
        for label, proc in (("cached", pc), ("uncached", pu)):
            if proc.returncode != 0:
                failures.append("%s: run-torch-tidy (%s) exited %d: %s" % (
                    name, label, proc.returncode, proc.stderr.strip().splitlines()[-1:]))
        try:
            dc = json.load(open(out + "-cached.json"))["diagnostics"]
            du = json.load(open(out + "-uncached.json"))["diagnostics"]
        except (OSError, ValueError, KeyError) as e:
            failures.append("%s: no report: %s" % (name, e))
            dc, du = [], None
        row["diagnostics"] = len(dc)
        row["identical"] = dc == du
        if dc != du:
            failures.append("%s: the cached run's diagnostics differ from the uncached run's" % name)
        if rct and not args.no_run_clang_tidy:
            wall_r, cpu_r, pr = timed([rct, "-p", "build", "-j", str(args.j), "-clang-tidy-binary",
                                       "clang-tidy-19", "-load", plugin, "-quiet"], proj, env)
            row["rct"] = (wall_r, cpu_r)
            row["rct_diagnostics"] = len(rct_diagnostics(pr.stdout))
        rows.append(row)
        print("%-9s cached %7.1f s wall %7.1f s CPU (%d hits, %d misses) | --no-cache %7.1f s / %7.1f s%s"
              " | %d diagnostics, %s" % (
                  name, wall_c, cpu_c, hits, misses, wall_u, cpu_u,
                  " | run-clang-tidy %7.1f s / %7.1f s" % row["rct"] if "rct" in row else "",
                  row["diagnostics"], "identical" if row["identical"] else "DIFFERENT"), flush=True)

    cold, unchanged = rows[0]["cached"][0], rows[1]["cached"][0]
    speedup = cold / max(unchanged, 1e-6)
    if speedup < args.target:
        failures.append("unchanged re-run only %.1fx faster than cold (target %.0fx)" % (speedup, args.target))
    lines = ["| state | files analysed / from the cache | run-torch-tidy, cache: wall | CPU | "
             "run-torch-tidy --no-cache: wall | CPU | run-clang-tidy-19 -load: wall | CPU | diagnostics |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %d / %d | %.1f s | %.1f s | %.1f s | %.1f s | %s | %s | %d, %s |" % (
            r["state"], r["misses"], r["hits"], r["cached"][0], r["cached"][1], r["uncached"][0],
            r["uncached"][1], "%.1f s" % r["rct"][0] if "rct" in r else "-",
            "%.1f s" % r["rct"][1] if "rct" in r else "-", r["diagnostics"],
            "identical to --no-cache" if r["identical"] else "DIFFERENT"))
    table = "\n".join(lines)
    print()
    print(table)
    print()
    print("unchanged re-run: %.1fx faster than cold (wall), %.1fx less CPU" % (
        speedup, rows[0]["cached"][1] / max(rows[1]["cached"][1], 1e-6)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    for f in failures:
        print("FAILED: " + f)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
