#!/usr/bin/env python3
"""Crash hunting: runs torch-tidy on thousands of broken inputs derived from the tests.

Each mutant is one source file (a check test or an example, its RUN/CHECK comment
lines removed) with one random damage:

  del_token, dup_token, swap_token   a token deleted, duplicated, swapped with the next
  del_line, dup_line, swap_line      a line deleted, duplicated, swapped with the next
  truncate                           the file cut at a random character
  brace, paren                       an unbalanced { } ( ) < > inserted anywhere
  macro                              a hostile or unbalanced preprocessor line inserted
  macro_wrap                         a statement passed through a function-like macro
  macro_line                         a line replaced by an object-like macro expanding to it
  templatize                         a function made a template with one dependent
                                     parameter (half of them explicitly instantiated)
  template_class                     a class or struct made a class template

torch-tidy runs with every torch-* check on each mutant (a quarter of the mock-header
mutants see the mock LibTorch through -I instead of -isystem, with --header-filter=.*).
The bar: no crash (killed by a signal, "Stack dump", "PLEASE submit a bug report",
"LLVM ERROR", "terminate called") and no hang (--timeout; the whole process group is
killed). Compiler errors are expected and fine.

  mutate.py --torch-tidy build/bin/torch-tidy --count 5000 --real-count 200 -j 1 --out /tmp/crashes
  mutate.py ... --count 60 --seed 1      # the small sample CI runs

Inputs: --count mutants of test/checks/*.cpp with the mock headers (fast), plus
--real-count mutants of examples/*/*.cpp against the real LibTorch headers (about
10 s each). Every crashing or hanging mutant is written to --out (default: a
directory under /tmp) with its log and the command that reproduces it.
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|::|->|\+\+|--|[^\s\w]")

CRASH_MARKERS = ["Stack dump", "PLEASE submit a bug report", "LLVM ERROR:", "terminate called"]

HOSTILE_MACROS = [
    "#define backward forward\n",
    "#define load(...) load(__VA_ARGS__, __VA_ARGS__)\n",
    "#define Tensor int\n",
    "#define torch at\n",
    "#define NoGradGuard InferenceMode\n",
    "#define eval() train()\n",
    "#define item detach\n",
    "#define sqrt(x) sqrt(x\n",
    "#if 1\n",
    "#endif\n",
    "#else\n",
    "#define M(x) x(\n",
    "#define for while\n",
    "#define TT_EMPTY\n#define TT_CALL(f, ...) f(__VA_ARGS__)\n",
    "template <typename T> struct Broken { void f() { T::x.backward(; } };\n",
    "template <typename T> auto dep(T t) -> decltype(t.backward()) { return t.backward(); }\n",
]

KINDS = ["del_token", "dup_token", "swap_token", "del_line", "dup_line", "swap_line",
         "truncate", "brace", "paren", "macro", "macro_wrap", "macro_line", "templatize",
         "template_class"]

# A function definition's header on one line, at namespace scope.
FUNCTION_HEADER = re.compile(
    r"^(?P<ret>(?:[A-Za-z_][\w:<>,]*[\s&*]+)+?)(?P<name>[A-Za-z_]\w*)\s*"
    r"\((?P<params>[^()]*)\)\s*(?:const\s*)?\{?\s*$")
NOT_A_FUNCTION = re.compile(r"^(?:#|//|/\*|\s|}|return\b|namespace\b|using\b|typedef\b|"
                            r"struct\b|class\b|template\b|enum\b|static_assert\b)")
PARAM = re.compile(r"^(?P<pre>\s*(?:const\s+)?)(?P<type>[A-Za-z_][\w:]*(?:<[^()]*>)?)"
                   r"(?P<post>\s*(?:const\s*)?[&*]+\s*|\s+)(?P<name>[A-Za-z_]\w*)?(?P<dflt>\s*=.*)?$")
CLASS_HEAD = re.compile(r"^(?:struct|class)\s+[A-Za-z_]\w*\s*(?::[^{;]*)?\{?\s*$")
STATEMENT = re.compile(r"^(?P<indent>\s+)(?P<stmt>[^#/\s][^;{}]*);\s*$")


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def templatize(lines, rng):
    """A function made a template: one parameter's type becomes T (so calls on it are
    unresolved, dependent code); half the time an explicit instantiation with the
    original type follows, so the instantiated body is seen too."""
    heads = [i for i, l in enumerate(lines)
             if not NOT_A_FUNCTION.match(l) and FUNCTION_HEADER.match(l)]
    if not heads:
        return None
    i = rng.choice(heads)
    m = FUNCTION_HEADER.match(lines[i])
    params = split_params(m.group("params"))
    typed = [(k, PARAM.match(p)) for k, p in enumerate(params)]
    typed = [(k, pm) for k, pm in typed if pm and pm.group("name") and pm.group("type") != "void"]
    if not typed:
        # No parameter to make dependent: a template with a defaulted parameter.
        lines.insert(i, "template <typename TT_T = int>")
        return lines
    k, pm = rng.choice(typed)
    orig_type = pm.group("type")
    params[k] = pm.group("pre") + "TT_T" + pm.group("post") + pm.group("name") + (pm.group("dflt") or "")
    head = lines[i]
    start, end = m.span("params")
    lines[i] = head[:start] + ",".join(params) + head[end:]
    lines.insert(i, "template <typename TT_T>")
    if rng.random() < 0.5:
        plain = [re.sub(r"\s*=.*$", "", p) for p in split_params(m.group("params"))]
        lines.append("template %s%s<%s>(%s);" % (m.group("ret"), m.group("name"), orig_type,
                                                ",".join(plain)))
    return lines


def template_class(lines, rng):
    heads = [i for i, l in enumerate(lines) if CLASS_HEAD.match(l)]
    if not heads:
        return None
    i = rng.choice(heads)
    lines.insert(i, "template <typename TT_T = int>")
    return lines


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.choice(KINDS)
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
    if kind in ("macro_wrap", "macro_line"):
        stmts = [i for i, l in enumerate(lines) if STATEMENT.match(l)]
        if stmts:
            i = rng.choice(stmts)
            m = STATEMENT.match(lines[i])
            if kind == "macro_wrap":
                lines[i] = "%sTT_WRAP(%s);" % (m.group("indent"), m.group("stmt"))
                define = "#define TT_WRAP(...) __VA_ARGS__"
            else:
                lines[i] = "%sTT_LINE_%d" % (m.group("indent"), i)
                define = "#define TT_LINE_%d %s;" % (i, m.group("stmt"))
            # After the includes, so the macro does not rename anything in them.
            after = max([j for j, l in enumerate(lines[:i]) if l.startswith("#include")] or [-1])
            lines.insert(after + 1, define)
            return kind, "\n".join(lines)
        kind = "macro"
    if kind in ("templatize", "template_class"):
        changed = (templatize if kind == "templatize" else template_class)(list(lines), rng)
        if changed is not None:
            return kind, "\n".join(changed)
        kind = "macro"
    pos = rng.randrange(len(text) + 1)
    if kind == "brace":
        return kind, text[:pos] + rng.choice("{}") + text[pos:]
    if kind == "paren":
        return kind, text[:pos] + rng.choice("()<>") + text[pos:]
    i = rng.randrange(len(lines) + 1)
    lines.insert(i, rng.choice(HOSTILE_MACROS).rstrip("\n"))
    return "macro", "\n".join(lines)


def strip_test_comments(text):
    """RUN and CHECK lines are for lit; damage spent on them would be wasted."""
    return "\n".join(l for l in text.split("\n")
                     if not re.match(r"^\s*//\s*(RUN|CHECK|REQUIRES|UNSUPPORTED)", l))


def run_tidy(cmd, timeout):
    """Runs one torch-tidy command: ("ok" | "crash" | "hang", output, seconds)."""
    start = time.monotonic()
    # A session of its own: on a timeout the whole group dies, also children
    # that would keep the output pipe open.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raw, _ = proc.communicate()
        return "hang", raw.decode("utf-8", "replace"), time.monotonic() - start
    elapsed = time.monotonic() - start
    out = raw.decode("utf-8", "replace")
    if proc.returncode < 0 or proc.returncode > 128 or any(m in out for m in CRASH_MARKERS):
        if proc.returncode < 0:
            out += "\n[mutate.py: killed by signal %d]\n" % -proc.returncode
        return "crash", out, elapsed
    return "ok", out, elapsed


def run_one(job):
    tidy, path, corpus, flags, kind, text, timeout, workdir, n = job
    src = os.path.join(workdir, "m%05d.cpp" % n)
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    cmd = [tidy, "--checks=-*,torch-*", "--quiet"] + flags[0] + [src, "--"] + flags[1]
    verdict, out, elapsed = run_tidy(cmd, timeout)
    if verdict == "ok":
        os.unlink(src)
        return ("ok", path, corpus, kind, None, None, None, elapsed)
    return (verdict, path, corpus, kind, text, cmd, out[-8000:], elapsed)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description="torch-tidy crash hunting over mutated inputs")
    p.add_argument("--torch-tidy", required=True)
    p.add_argument("--count", type=int, default=1000,
                   help="mutants of test/checks/*.cpp (mock headers)")
    p.add_argument("--real-count", type=int, default=0,
                   help="mutants of examples/*/*.cpp against the real LibTorch headers")
    p.add_argument("--real", action="store_true",
                   help="shorthand for --real-count = count / 20")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per mock mutant")
    p.add_argument("--real-timeout", type=float, default=180.0, help="seconds per real mutant")
    p.add_argument("--libtorch-include", default="/usr/include/torch/csrc/api/include")
    p.add_argument("--out", default=None, help="directory for crashing/hanging mutants")
    p.add_argument("--list-only", action="store_true",
                   help="write the mutants to --out without running torch-tidy")
    args = p.parse_args()
    if args.real and not args.real_count:
        args.real_count = max(1, args.count // 20)
    if args.count < 0 or args.real_count < 0 or args.count + args.real_count < 1 or args.jobs < 1:
        sys.stderr.write("mutate.py: --count/--real-count must give at least one mutant, --jobs positive\n")
        return 2
    if not args.list_only and not os.access(args.torch_tidy, os.X_OK):
        sys.stderr.write("mutate.py: not an executable: %s\n" % args.torch_tidy)
        return 2

    inputs = os.path.join(root, "test", "checks", "Inputs")
    user = ["-I", os.path.join(inputs, "user")]
    mock_sys = ([], ["-std=c++17", "-isystem", inputs] + user)
    mock_I = (["--header-filter=.*"], ["-std=c++17", "-I", inputs] + user)
    real = ([], ["-std=c++17", "-isystem", args.libtorch_include])
    mock_files = [f for f in sorted(glob.glob(os.path.join(root, "test", "checks", "*.cpp")))
                  if "REQUIRES: libtorch" not in open(f, encoding="utf-8").read()]
    real_files = sorted(glob.glob(os.path.join(root, "examples", "*", "*.cpp")))
    if (args.count and not mock_files) or (args.real_count and not real_files):
        sys.stderr.write("mutate.py: no input files found\n")
        return 2
    if args.real_count and not os.path.exists(os.path.join(args.libtorch_include, "torch", "torch.h")):
        sys.stderr.write("mutate.py: no LibTorch headers in %s\n" % args.libtorch_include)
        return 2
    texts = {f: strip_test_comments(open(f, encoding="utf-8").read()) for f in mock_files + real_files}

    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="torch-tidy-mutants-")
    jobs = []
    for n in range(args.count + args.real_count):
        if n < args.count:
            path, corpus = rng.choice(mock_files), "mock"
            flags = mock_I if rng.random() < 0.25 else mock_sys
            timeout = args.timeout
        else:
            path, corpus, flags, timeout = rng.choice(real_files), "real", real, args.real_timeout
        kind, text = mutate(texts[path], rng)
        jobs.append((args.torch_tidy, path, corpus, flags, kind, text, timeout, workdir, n))

    if args.list_only:
        out = args.out or workdir
        os.makedirs(out, exist_ok=True)
        for job in jobs:
            with open(os.path.join(out, "m%05d-%s.cpp" % (job[8], job[4])), "w", encoding="utf-8") as f:
                f.write(job[5])
        print("%d mutants written to %s" % (len(jobs), out))
        return 0

    by_kind_done = collections.Counter()
    bad_by_kind = collections.Counter()
    times = collections.defaultdict(list)
    bad = []
    wall0 = time.monotonic()
    total = len(jobs)
    every = 100 if total > 500 else 10
    done = 0
    # SIGTERM or ^C stops the run early with a summary of the mutants done so far.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    try:
        for result in pool.map(run_one, jobs):
            done += 1
            times[result[2]].append(result[7])
            by_kind_done[result[3]] += 1
            if result[0] != "ok":
                bad.append(result)
                bad_by_kind[result[3]] += 1
                print("%s: mutant of %s (%s)" % (result[0].upper(), os.path.relpath(result[1], root),
                                                 result[3]), flush=True)
            if done % every == 0:
                print("%d/%d mutants, %d bad, %.0f s" % (done, total, len(bad),
                                                         time.monotonic() - wall0), flush=True)
    except KeyboardInterrupt:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("interrupted after %d of %d mutants" % (done, total), flush=True)
    pool.shutdown(wait=True, cancel_futures=True)
    wall = time.monotonic() - wall0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)

    if bad:
        out = args.out or tempfile.mkdtemp(prefix="torch-tidy-crashes-")
        os.makedirs(out, exist_ok=True)
        for i, (what, path, corpus, kind, text, cmd, log, _) in enumerate(bad):
            base = os.path.join(out, "%s-%03d" % (what, i))
            with open(base + ".cpp", "w", encoding="utf-8") as f:
                f.write(text)
            with open(base + ".log", "w", encoding="utf-8") as f:
                f.write("mutant of %s (%s)\n" % (os.path.relpath(path, root), kind))
                # The command that reproduces it, on the saved copy.
                cmd = [base + ".cpp" if c.startswith(workdir) else c for c in cmd]
                f.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
                f.write(log or "")
                if what == "hang":
                    f.write("\n[mutate.py: timeout]\n")
        print("bad mutants written to %s" % out)
    shutil.rmtree(workdir, ignore_errors=True)

    print("by kind: " + ", ".join("%s %d%s" % (k, by_kind_done[k], " (%d bad)" % bad_by_kind[k]
                                                if bad_by_kind[k] else "")
                                  for k in KINDS if by_kind_done[k]))
    for corpus in ("mock", "real"):
        if times[corpus]:
            t = times[corpus]
            print("%s: %d mutants, %.2f s mean, %.2f s max" % (corpus, len(t), sum(t) / len(t), max(t)))
    print("wall %.0f s, cpu %.0f s (user %.0f s, sys %.0f s)" % (
        wall, usage.ru_utime + usage.ru_stime, usage.ru_utime, usage.ru_stime))
    print("mutants: %d, crashes: %d, hangs: %d" % (
        done, sum(1 for b in bad if b[0] == "crash"), sum(1 for b in bad if b[0] == "hang")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
