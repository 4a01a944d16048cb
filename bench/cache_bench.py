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
the cache and run-torch-tidy --no-cache, whose report is the reference: the cached
run's diagnostics must be the same (in the unchanged state the cold state's
uncached run is the reference; the bench checks that no file changed). Last,
run-clang-tidy-19 -load lib/libTorchTidy.so over the project (it has no cache: it
costs the same in every state). Exit status 1 when a cached report differs, a run
fails, or the unchanged re-run is not --target times faster (wall) than the cold
run; 2 on bad arguments.

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


def write_table(rows, args, failures):
    states = [rows[k] for k in ("cold", "unchanged", "header", "source") if k in rows]
    rct = rows.get("rct")
    lines = ["| state | analysed / from the cache | run-torch-tidy (cache): wall | CPU | "
             "run-torch-tidy --no-cache: wall | CPU | run-clang-tidy-19 -load: wall | CPU | diagnostics |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in states:
        c, u = r["cached"], r["uncached"]
        note = " (cold's)" if r["state"] == "unchanged" else \
            " (%d changed file%s)" % (u["scope"], "" if u["scope"] == 1 else "s") if "scope" in u else ""
        lines.append("| %s | %d / %d | %.1f s | %.1f s | %.1f s%s | %.1f s | %s | %s | %d, %s |" % (
            r["state"], c["misses"], c["hits"], c["wall"], c["cpu"], u["wall"], note, u["cpu"],
            "%.1f s" % rct["wall"] if rct else "-", "%.1f s" % rct["cpu"] if rct else "-",
            r["diagnostics"], "identical to --no-cache" if r["identical"] else "DIFFERENT"))
    text = "\n".join(lines) + "\n"
    if "cold" in rows and "unchanged" in rows:
        cold, unchanged = rows["cold"]["cached"], rows["unchanged"]["cached"]
        text += "\nunchanged re-run: %.1fx faster than cold (wall), %.1fx less CPU\n" % (
            cold["wall"] / max(unchanged["wall"], 1e-6), cold["cpu"] / max(unchanged["cpu"], 1e-6))
    text += "".join("FAILED: %s\n" % f for f in failures)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="torch-tidy build directory")
    p.add_argument("-n", type=int, default=20, help="generated files (default 20)")
    p.add_argument("-j", type=int, default=2, help="parallel runs (default 2)")
    p.add_argument("--target", type=float, default=20.0, help="unchanged vs cold speed-up (default 20)")
    p.add_argument("--no-run-clang-tidy", action="store_true", help="do not time run-clang-tidy")
    p.add_argument("--markdown", help="write the table to this file")
    p.add_argument("--keep", metavar="DIR", help="make the project in DIR (must not exist) and keep it")
    p.add_argument("--reference", choices=("full", "changed"), default="full",
                   help="the uncached reference after an edit: a run over every file (full), or over "
                        "the changed translation units only, the others' diagnostics taken from the "
                        "cold state's uncached run (changed; for a loaded machine)")
    p.add_argument("--continue", dest="resume", metavar="DIR",
                   help="continue a --keep run whose cold and unchanged states are done: only the "
                        "header and source states")
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
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
    if args.resume and not os.path.exists(os.path.join(args.resume, "cold-uncached.json")):
        sys.stderr.write("cache_bench: --continue %s: no cold-uncached.json there\n" % args.resume)
        return 2
    if args.keep and os.path.exists(args.keep):
        sys.stderr.write("cache_bench: --keep %s: already exists\n" % args.keep)
        return 2
    if args.resume:
        args.keep = work = os.path.abspath(args.resume)
        proj = os.path.join(work, "project")
        files = sorted(glob.glob(os.path.join(proj, "src", "train_*.cpp"))) + sorted(
            os.path.join(proj, "src", "%s.cpp" % os.path.basename(os.path.dirname(ex)))
            for ex in glob.glob(os.path.join(ROOT, "examples", "*", "buggy.cpp")))
    else:
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

    def fingerprint():
        out = []
        for f in sorted(glob.glob(os.path.join(proj, "*", "*"))):
            if os.path.isfile(f):
                with open(f, "rb") as fh:
                    out.append((f, fh.read()))
        return out

    def report(label):
        try:
            with open(os.path.join(work, label + ".json")) as f:
                return json.load(f)["diagnostics"]
        except (OSError, ValueError, KeyError) as e:
            failures.append("%s: no report: %s" % (label, e))
            return None

    def run_torch_tidy(label, cached, only=()):
        opts = ["--cache", "--cache-dir", cache, "-v"] if cached else ["--no-cache"]
        opts += ["%s$" % re.escape(f) for f in only]
        wall, cpu, proc = timed(base + opts + ["-o", os.path.join(work, label + ".json")], proj, env)
        if proc.returncode != 0:
            failures.append("%s: run-torch-tidy exited %d: %s" % (
                label, proc.returncode, proc.stderr.strip().splitlines()[-1:]))
        hits = len(re.findall(r": cache hit", proc.stderr))
        misses = len(re.findall(r": cache miss", proc.stderr))
        print("%-18s %7.1f s wall %7.1f s CPU%s" % (
            label, wall, cpu, " (%d from the cache, %d analysed)" % (hits, misses) if cached else ""),
            flush=True)
        return {"wall": wall, "cpu": cpu, "hits": hits, "misses": misses}

    # The runs in order of importance (the machine may be shared and slow): the
    # cached runs of every state first, each followed by the uncached reference of
    # its state when the files changed (the unchanged state's reference is the cold
    # one: the bench checks that no file changed), run-clang-tidy last (it has no
    # cache: its cost is the same in every state).
    rows = {}
    states = [("cold", None), ("unchanged", None), ("header", edit_header), ("source", edit_source)]
    changed = {"header": [f for f in files if '#include "common.h"' in open(f).read()], "source": [files[1]]}
    if args.resume:
        states = states[2:]
    failures = []
    snapshot = None
    for name, change in states:
        row = rows[name] = {"state": name}
        done = os.path.join(work, name + "-cached.json")
        if args.resume and os.path.exists(done):
            # This state's edit and cached run were done by the run being continued
            # (its log has the CPU time): only its reference is run now.
            with open(done) as f:
                r = json.load(f)
            hits = sum(1 for x in r["files"] if x.get("cached"))
            row["cached"] = {"wall": r["summary"]["seconds"], "cpu": float("nan"), "hits": hits,
                             "misses": len(r["files"]) - hits}
        else:
            if change:
                change()
            row["cached"] = run_torch_tidy(name + "-cached", True)
        if name == "unchanged":
            if fingerprint() != snapshot:
                failures.append("unchanged: the project changed between the runs")
            row["uncached"] = rows["cold"]["uncached"]
            reference = "cold-uncached"
        elif name in changed and args.reference == "changed":
            only = changed[name]
            row["uncached"] = run_torch_tidy(name + "-uncached", False, only)
            row["uncached"]["scope"] = len(only)
            rel = {os.path.relpath(f, proj) for f in only}
            merged = [d for d in report("cold-uncached") or [] if d["file"] not in rel]
            merged += report(name + "-uncached") or []
            merged.sort(key=lambda d: (d["file"] or "", d["line"], d["column"], d["check"], d["message"]))
            with open(os.path.join(work, name + "-reference.json"), "w") as f:
                json.dump({"diagnostics": merged}, f)
            reference = name + "-reference"
        else:
            row["uncached"] = run_torch_tidy(name + "-uncached", False)
            reference = name + "-uncached"
        if name == "cold":
            snapshot = fingerprint()
        dc, du = report(name + "-cached"), report(reference)
        row["diagnostics"] = len(dc or [])
        row["identical"] = dc is not None and dc == du
        if not row["identical"]:
            failures.append("%s: the cached run's diagnostics differ from the uncached run's" % name)
        write_table(rows, args, failures)
    if rct and not args.no_run_clang_tidy:
        wall, cpu, pr = timed([rct, "-p", "build", "-j", str(args.j), "-clang-tidy-binary", "clang-tidy-19",
                               "-load", plugin, "-quiet"], proj, env)
        print("%-18s %7.1f s wall %7.1f s CPU, %d diagnostics" % (
            "run-clang-tidy", wall, cpu, len(rct_diagnostics(pr.stdout))), flush=True)
        rows["rct"] = {"wall": wall, "cpu": cpu}
    speedup = rows["cold"]["cached"]["wall"] / max(rows["unchanged"]["cached"]["wall"], 1e-6) \
        if "cold" in rows else args.target
    if speedup < args.target:
        failures.append("unchanged re-run only %.1fx faster than cold (target %.0fx)" % (speedup, args.target))
    print()
    print(write_table(rows, args, failures), end="")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
