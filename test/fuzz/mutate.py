#!/usr/bin/env python3
"""Crash hunting: runs torch-tidy on thousands of broken inputs derived from the tests.

Each mutant is one source file (a check test or an example) with one random damage:
a token deleted, duplicated or swapped, a line deleted, duplicated or swapped, the file
truncated, an unbalanced brace or parenthesis, or a hostile macro. torch-tidy runs with
every torch-* check on it. The bar: no crash (a signal, "Stack dump", "PLEASE submit a
bug report") and no hang (--timeout). Compiler errors are expected and fine.

  mutate.py --torch-tidy build/bin/torch-tidy --count 5000 -j 2 --out /tmp/crashes
  mutate.py ... --count 60 --seed 1      # the small sample CI runs

Inputs: test/checks/*.cpp with the mock headers (fast); with --real, also
examples/*/*.cpp against the real LibTorch headers (about 10 s each).
Every crashing or hanging mutant is written to --out for a regression test.
"""

import argparse
import concurrent.futures
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|::|->|\+\+|--|[^\s\w]")

HOSTILE_MACROS = [
    "#define backward forward\n",
    "#define load(...) load(__VA_ARGS__, __VA_ARGS__)\n",
    "#define Tensor int\n",
    "#define torch at\n",
    "#define NoGradGuard InferenceMode\n",
    "#if 1\n",
    "#endif\n",
    "#define M(x) x(\n",
    "template <typename T> struct Broken { void f() { T::x.backward(; } };\n",
]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.choice(["del_token", "dup_token", "swap_token", "del_line", "dup_line",
                       "swap_line", "truncate", "brace", "paren", "macro"])
    if kind in ("del_token", "dup_token", "swap_token"):
        spans = [m.span() for m in TOKEN.finditer(text)]
        if len(spans) < 2:
            return kind, text[: len(text) // 2]
        i = rng.randrange(len(spans) - 1)
        (a, b), (c, d) = spans[i], spans[i + 1]
        if kind == "del_token":
            return kind, text[:a] + text[b:]
        if kind == "dup_token":
            return kind, text[:b] + " " + text[a:b] + text[b:]
        return kind, text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    if kind in ("del_line", "dup_line", "swap_line") and len(lines) > 2:
        i = rng.randrange(len(lines) - 1)
        if kind == "del_line":
            del lines[i]
        elif kind == "dup_line":
            lines.insert(i, lines[i])
        else:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        return kind, "\n".join(lines)
    if kind == "truncate":
        return kind, text[: rng.randrange(len(text) + 1)]
    pos = rng.randrange(len(text) + 1)
    if kind == "brace":
        return kind, text[:pos] + rng.choice("{}") + text[pos:]
    if kind == "paren":
        return kind, text[:pos] + rng.choice("()<>") + text[pos:]
    i = rng.randrange(len(lines) + 1)
    lines.insert(i, rng.choice(HOSTILE_MACROS).rstrip("\n"))
    return "macro", "\n".join(lines)


def run_one(job):
    tidy, path, flags, kind, text, timeout, workdir, n = job
    src = os.path.join(workdir, "m%05d.cpp" % n)
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    cmd = [tidy, "--checks=-*,torch-*", "--quiet", src, "--"] + flags
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return ("hang", path, kind, text, "")
    out = proc.stdout
    if proc.returncode < 0 or "Stack dump" in out or "PLEASE submit a bug report" in out:
        return ("crash", path, kind, text, out[-4000:])
    os.unlink(src)
    return ("ok", path, kind, None, None)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description="torch-tidy crash hunting over mutated inputs")
    p.add_argument("--torch-tidy", required=True)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--real", action="store_true", help="also mutate examples/ (real headers)")
    p.add_argument("--out", default=None, help="directory for crashing/hanging mutants")
    args = p.parse_args()
    if args.count < 1 or args.jobs < 1:
        sys.stderr.write("mutate.py: --count and --jobs must be positive\n")
        return 2
    if not os.access(args.torch_tidy, os.X_OK):
        sys.stderr.write("mutate.py: not an executable: %s\n" % args.torch_tidy)
        return 2

    mock = ["-std=c++17", "-isystem", os.path.join(root, "test", "checks", "Inputs")]
    real = ["-std=c++17", "-isystem", "/usr/include/torch/csrc/api/include"]
    corpus = [(f, mock) for f in sorted(glob.glob(os.path.join(root, "test", "checks", "*.cpp")))
              if "REQUIRES: libtorch" not in open(f, encoding="utf-8").read()]
    if args.real:
        corpus += [(f, real) for f in sorted(glob.glob(os.path.join(root, "examples", "*", "*.cpp")))]
    if not corpus:
        sys.stderr.write("mutate.py: no input files found\n")
        return 2

    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="torch-tidy-mutants-")
    jobs = []
    for n in range(args.count):
        path, flags = rng.choice(corpus)
        with open(path, encoding="utf-8") as f:
            kind, text = mutate(f.read(), rng)
        jobs.append((args.torch_tidy, path, flags, kind, text, args.timeout, workdir, n))

    bad = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for done, result in enumerate(pool.map(run_one, jobs), 1):
            if result[0] != "ok":
                bad.append(result)
                print("%s: mutant of %s (%s)" % (result[0].upper(), os.path.relpath(result[1], root),
                                                 result[2]), flush=True)
            if done % 100 == 0:
                print("%d/%d mutants, %d bad" % (done, args.count, len(bad)), flush=True)

    if bad and args.out:
        os.makedirs(args.out, exist_ok=True)
        for i, (what, path, kind, text, out) in enumerate(bad):
            base = os.path.join(args.out, "%s-%03d" % (what, i))
            with open(base + ".cpp", "w", encoding="utf-8") as f:
                f.write(text)
            with open(base + ".log", "w", encoding="utf-8") as f:
                f.write(out or "timeout\n")
    print("mutants: %d, crashes: %d, hangs: %d" % (
        args.count, sum(1 for b in bad if b[0] == "crash"), sum(1 for b in bad if b[0] == "hang")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
