#!/usr/bin/env python3
"""Fix-it safety against the real LibTorch headers (issue 8, item 4).

For every input -- the lit tests' sources and the examples -- that compiles against the
real LibTorch headers, apply `--fix` with every torch-* check (against the real headers)
and require that
  * the fixed file still compiles (clang++ -fsyntax-only),
  * a second `--fix` changes nothing,
  * torch-tidy neither crashes nor reports a compiler error.
Inputs written against the mock headers only (the mock simplifies some LibTorch
signatures) or broken on purpose must be named, with the reason, in the --mock-only
list; the run fails if any other input does not compile against the real headers, and
also if a listed one does (so that the list stays true). Their fixed files are compiled
against the mock by the lit tests themselves (check_torch_tidy.py).

The LibTorch headers are parsed once, into a precompiled header built with --clangxx
(the same clang version as torch-tidy), so each input costs a few seconds. Whether an
input compiles is first seen in torch-tidy's own parse (same clang, same flags); the
compiler is asked only about the inputs where torch-tidy reported an error, to tell a
mock-only input from a torch-tidy failure (this halves the part's time).

Two more savings keep the part's time down (each real parse costs about 5 s):
  * with --mock-include, a first pass over the mock headers (well under a second an
    input) picks the inputs that get a fix-it; an input that parses cleanly against the
    mock and gets none is reported `clean (mock)` and not parsed against the real
    headers. Inputs named in the mock-only list, and inputs the mock pass cannot parse,
    always go to the real headers. What this gives up: an input with a fix-it against the
    real headers only would not be tried (the mock declares LibTorch's signatures in a
    simpler form, never more overloads, so a check finds no more there than in the mock).
  * the fixed file's compilation and the second `--fix` are one parse: torch-tidy's
    second run over a copy of the fixed file reports any compiler error in it (same clang,
    same flags); the compiler is asked only when it does, to print its own message.

  fix_compiles_real.py --torch-tidy build/bin/torch-tidy --clangxx clang++-19 \\
      --include /usr/include/torch/csrc/api/include --mock-only test/fixits/mock-only.txt \\
      --work /tmp/fixits test/checks/*.cpp examples/*/*.cpp
Exit status: 0 all good, 1 a failure, 2 bad arguments.
"""
import argparse
import concurrent.futures
import filecmp
import os
import shutil
import subprocess
import sys

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump:")


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    return proc.returncode, proc.stdout


def read_mock_only(path):
    listed = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(":")
            if not reason.strip():
                raise SystemExit("fix_compiles_real: %s:%d: expected '<file>: <reason>'"
                                 % (path, number))
            listed[name.strip()] = reason.strip()
    return listed


def tidy_command(args):
    # Only the input itself is fixed (whatever a .clang-tidy file around it says).
    return [args.torch_tidy, "--checks=-*,torch-*", "--header-filter=^$", "--quiet", "--fix"]


def fixed_on_mock(src, work, args):
    """True when the mock pass gives `src` a fix-it or cannot parse it (the real headers
    decide then); False when it parses cleanly against the mock and nothing changes."""
    mock = work + ".mock.cpp"
    shutil.copyfile(src, mock)
    code, out = run(tidy_command(args) + [mock, "--", "-std=c++17", "-isystem", args.mock_include]
                    + ["-I" + d for d in args.extra_include])
    if code < 0 or "error:" in out or any(m in out for m in CRASH_MARKERS):
        return True
    return not filecmp.cmp(src, mock, shallow=False)


def check_input(src, args, flags, listed):
    """Returns (status, detail); status is 'fixed', 'clean', 'clean (mock)', 'mock-only' or
    'FAIL'."""
    name = os.path.relpath(src, args.root)
    work = os.path.join(args.work, name.replace(os.sep, "_"))
    if args.mock_include and name not in listed and not fixed_on_mock(src, work, args):
        return "clean (mock)", ""
    shutil.copyfile(src, work)
    tidy = tidy_command(args)
    code, out = run(tidy + [work, "--"] + flags)
    if code < 0 or any(m in out for m in CRASH_MARKERS):
        return "FAIL", "torch-tidy crashed (exit %d):\n%s" % (code, out)
    if "error:" in out:
        # torch-tidy parses with the same clang and flags as the compiler, so an
        # input that does not compile shows here first; the compiler decides
        # (only for these few inputs) whether the input or torch-tidy is wrong.
        code, compiled = run([args.clangxx, "-fsyntax-only"] + flags + [src])
        if code != 0:
            return "mock-only", compiled.splitlines()[0] if compiled else "does not compile"
        return "FAIL", "torch-tidy reported an error:\n%s" % out
    if filecmp.cmp(src, work, shallow=False):
        return "clean", ""  # Unchanged: it parsed without error, and --fix is a no-op.
    again = work + ".again.cpp"
    shutil.copyfile(work, again)
    code, out = run(tidy + [again, "--"] + flags)
    if code < 0 or any(m in out for m in CRASH_MARKERS):
        return "FAIL", "torch-tidy crashed on the fixed file (exit %d):\n%s" % (code, out)
    if "error:" in out:
        code, compiled = run([args.clangxx, "-fsyntax-only"] + flags + [work])
        return "FAIL", "the fixed file does not compile:\n%s" % (compiled if code else out)
    if not filecmp.cmp(work, again, shallow=False):
        return "FAIL", "a second --fix changed the fixed file again"
    return "fixed", ""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torch-tidy", required=True)
    p.add_argument("--clangxx", required=True)
    p.add_argument("--include", required=True, help="LibTorch's API include directory")
    p.add_argument("--base-include", help="LibTorch's own include directory when it is not a "
                   "system one (a torch wheel's torch/include; Debian's is /usr/include)")
    p.add_argument("--std", default="c++17", help="the C++ standard (LibTorch 2.14+: c++20)")
    p.add_argument("--extra-include", action="append", default=[],
                   help="a user include directory the inputs need")
    p.add_argument("--mock-only", required=True)
    p.add_argument("--mock-include", help="the mock LibTorch headers: a first pass there picks "
                   "the inputs that get a fix-it (the others are not parsed against the real ones)")
    p.add_argument("--work", required=True)
    p.add_argument("--root", default=os.getcwd(), help="inputs are named relative to it")
    p.add_argument("-j", type=int, default=2)
    p.add_argument("inputs", nargs="+")
    args = p.parse_args()
    for path in [args.torch_tidy, args.clangxx, args.mock_only] + args.inputs:
        if not os.path.exists(path) and not shutil.which(path):
            print("fix_compiles_real: no such file: %s" % path, file=sys.stderr)
            return 2
    if args.mock_include and not os.path.exists(os.path.join(args.mock_include, "torch", "torch.h")):
        print("fix_compiles_real: no torch/torch.h under %s" % args.mock_include, file=sys.stderr)
        return 2
    if not os.path.exists(os.path.join(args.include, "torch", "torch.h")):
        print("fix_compiles_real: no torch/torch.h under %s" % args.include, file=sys.stderr)
        return 2
    listed = read_mock_only(args.mock_only)
    os.makedirs(args.work, exist_ok=True)

    header = os.path.join(args.work, "libtorch.h")
    with open(header, "w") as f:
        f.write("#include <torch/torch.h>\n#include <torch/script.h>\n")
    # The extra include directories are copied: --fix must never touch the sources.
    copies = []
    for number, directory in enumerate(args.extra_include):
        copy = os.path.join(args.work, "include%d" % number)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(directory, copy)
        copies.append(copy)
    base = ["-std=" + args.std] + (["-isystem", args.base_include] if args.base_include else []) \
        + ["-isystem", args.include] + ["-I" + d for d in copies]
    code, out = run([args.clangxx, "-x", "c++-header", "-fpch-instantiate-templates"] + base
                    + [header, "-o", header + ".pch"])
    if code != 0:
        print("fix_compiles_real: cannot precompile LibTorch's headers:\n" + out, file=sys.stderr)
        return 1
    flags = base + ["-include-pch", header + ".pch"]

    failures = 0
    counts = {"fixed": 0, "clean": 0, "clean (mock)": 0, "mock-only": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        results = pool.map(lambda s: (s, check_input(s, args, flags, listed)), args.inputs)
        for src, (status, detail) in results:
            name = os.path.relpath(src, args.root)
            if status == "mock-only":
                if name not in listed:
                    failures += 1
                    print("FAIL %s: does not compile against the real headers and is not "
                          "in %s: %s" % (name, args.mock_only, detail))
                    continue
                print("mock-only %s (%s)" % (name, listed[name]))
            elif status == "FAIL":
                failures += 1
                print("FAIL %s: %s" % (name, detail))
                continue
            elif name in listed:
                failures += 1
                print("FAIL %s: listed as mock-only but compiles against the real headers"
                      % name)
                continue
            elif status == "clean (mock)":
                print("clean %s (mock pass)" % name)
            else:
                print("%s %s" % (status, name))
            counts[status] += 1
    print("inputs: %d, fixed and compiled against the real headers: %d, no fix-it: %d "
          "(real headers) + %d (mock pass), mock-only: %d, failures: %d"
          % (len(args.inputs), counts["fixed"], counts["clean"], counts["clean (mock)"],
             counts["mock-only"], failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
