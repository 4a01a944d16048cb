#!/usr/bin/env python3
"""Measures run-torch-tidy --shard (docs/performance.md, "Sharded runs").

The project: test/tools/Inputs/shards/make_project.py with CHAINS training loops
that train through chains of LENGTH helpers in other files (summaries across
files need LENGTH + 1 rounds), CHAINS * (LENGTH + 2) + 2 files, against the real
LibTorch headers (Debian's libtorch-dev) or, with --mock, the mock headers of
test/checks/Inputs. It times (wall, and CPU of all child processes) one
unsharded run, then the N shards run one after the other, as N jobs of a CI
matrix would run side by side: the summaries of each shard (--summaries-only
--shard K/N), --merge-summaries, the diagnostics of each shard (--summaries-from),
--merge-sarif. No cache (--no-cache); each run builds its own precompiled header,
as each CI job does. Exit status 1 when the merged SARIF report or the merged
summaries differ from the unsharded run's.

  bench/shard_bench.py --build build [--chains 14] [--length 5] [--shards 4] [-j 2] [--mock]
  bench/shard_bench.py --build build --project DB_DIR [--no-summaries] [--shards 3]

--project takes an existing project instead (DB_DIR holds its compile_commands.json, e.g. a
corpus project's database under run_corpus.py's --work directory); --no-summaries compares
the sharded and unsharded runs without summaries across files (one phase per shard).
"""
import argparse
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


def timed(cmd, cwd, ok=(0, 1)):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in ok:
        sys.exit("failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stderr


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--chains", type=int, default=14)
    p.add_argument("--length", type=int, default=5)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("-j", type=int, default=2)
    p.add_argument("--mock", action="store_true")
    p.add_argument("--keep", metavar="DIR")
    p.add_argument("--project", metavar="DB_DIR")
    p.add_argument("--no-summaries", action="store_true")
    a = p.parse_args()
    runner = [sys.executable, os.path.join(os.path.abspath(a.build), "bin", "run-torch-tidy")]
    work = a.keep or tempfile.mkdtemp(prefix="shard-bench-")
    headers = os.path.join(ROOT, "test", "checks", "Inputs") if a.mock else LIBTORCH
    if a.project:
        db = os.path.abspath(a.project)
    else:
        db = os.path.join(work, "build")
        subprocess.run([sys.executable, os.path.join(ROOT, "test", "tools", "Inputs", "shards", "make_project.py"),
                        work, headers, str(a.chains), str(a.length)], check=True)
    common = ["-p", db, "-j", str(a.j), "--no-cache", "--source-root", work, "--progress=lines"]
    n = a.shards
    rows = []

    def step(name, argv, ok=(0, 1)):
        wall, cpu, err = timed(runner + common + ["-v"] + argv, work, ok)
        rows.append((name, wall, cpu))
        # -v: "summaries: R rounds, A analyses, ..." (no line: one analysis per file)
        m = re.search(r"^run-torch-tidy: summaries: (\d+) rounds?, (\d+) analys", err, re.M)
        files = len(re.findall(r"^run-torch-tidy: \[", err, re.M))
        what = ("%s round%s, %s analyses" % (m.group(1), "" if m.group(1) == "1" else "s", m.group(2))
                if m else "%d analyses" % files)
        print("%-26s %7.1f s wall %7.1f s CPU  (%s)" % (name, wall, cpu, what), flush=True)
        return err

    if a.no_summaries:
        step("unsharded", ["--no-summaries", "--format=sarif", "-o", "unsharded.sarif"])
        for k in range(1, n + 1):
            step("shard %d/%d" % (k, n), ["--no-summaries", "--shard", "%d/%d" % (k, n), "--exit-zero",
                                          "--format=sarif", "-o", "d%d.sarif" % k], ok=(0,))
        timed(runner + ["--merge-sarif", "merged.sarif"] + ["d%d.sarif" % k for k in range(1, n + 1)], work)
        same = open(os.path.join(work, "unsharded.sarif"), "rb").read() == \
            open(os.path.join(work, "merged.sarif"), "rb").read()
        print("merged SARIF %s the unsharded report" % ("identical to" if same else "DIFFERENT from"))
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
        return 0 if same else 1
    step("unsharded", ["--format=sarif", "-o", "unsharded.sarif"])
    shutil.move(os.path.join(db, "torch-tidy-summaries.json"), os.path.join(work, "unsharded.json"))
    for k in range(1, n + 1):
        step("summaries, shard %d/%d" % (k, n), ["--summaries-only", "--shard", "%d/%d" % (k, n),
                                                 "--summaries-out", "s%d.json" % k], ok=(0,))
    err = step("--merge-summaries", ["--merge-summaries", "merged.json"] + ["s%d.json" % k for k in range(1, n + 1)],
               ok=(0,))
    for k in range(1, n + 1):
        step("diagnostics, shard %d/%d" % (k, n), ["--shard", "%d/%d" % (k, n), "--summaries-from", "merged.json",
                                                   "--exit-zero", "--format=sarif", "-o", "d%d.sarif" % k], ok=(0,))
    wall, cpu, _ = timed(runner + ["--merge-sarif", "merged.sarif"] + ["d%d.sarif" % k for k in range(1, n + 1)], work)
    rows.append(("--merge-sarif", wall, cpu))
    same = [open(os.path.join(work, x), "rb").read() == open(os.path.join(work, y), "rb").read()
            for x, y in (("unsharded.sarif", "merged.sarif"), ("unsharded.json", "merged.json"))]
    print("merge: %s" % [l for l in err.splitlines() if "from the shards" in l][-1:])
    print("merged SARIF %s the unsharded report; merged summaries %s the unsharded table"
          % tuple("identical to" if s else "DIFFERENT from" for s in same))
    sharded = rows[1:]
    print("sharded total: %.1f s wall (one after the other), %.1f s CPU; unsharded: %.1f s wall, %.1f s CPU"
          % (sum(r[1] for r in sharded), sum(r[2] for r in sharded), rows[0][1], rows[0][2]))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main())
