#!/usr/bin/env python3
"""Runs one torch-tidy check test, with the semantics of upstream's check_clang_tidy.py.

Usage:
  check_torch_tidy.py [options] <source> <checks> <temp> [-- <tidy args> [-- <compiler args>]]

* CHECK-MESSAGES[-SUFFIX] lines are matched against clang-tidy's output with every other
  warning and error forbidden; CHECK-NOTES[-SUFFIX] additionally forbids unmatched notes.
* CHECK-FIXES[-SUFFIX] lines are matched against the file after `--fix`. Without any
  CHECK-FIXES the fixed file must equal the input: every fix-it is tested.
* A file with no CHECK line at all must produce no diagnostic.
* CHECK lines are stripped (keeping line numbers) before clang-tidy sees the file.
* The test fails if clang-tidy crashes, reports a compiler error (unless
  --expect-compiler-errors), or if a second `--fix` would change the fixed file again.
* --no-fix runs without --fix (for tests that diagnose headers of the source tree).
* When fix-its were applied, the fixed file is compiled with the compiler args
  (clang++ -fsyntax-only): against the mock headers for mock tests, against the real
  LibTorch headers for `REQUIRES: libtorch` tests. --no-compile-fixed opts out.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys


def fail(msg):
    sys.stderr.write("check_torch_tidy: " + msg + "\n")
    sys.exit(1)


def run(cmd, what):
    print("RUN: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    if proc.returncode < 0 or "PLEASE submit a bug report" in out or "Stack dump:" in out:
        print(out)
        fail("%s crashed (exit %d)" % (what, proc.returncode))
    return proc.returncode, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tidy", required=True, help="clang-tidy compatible binary")
    parser.add_argument("--load", action="append", default=[], help="plugin to --load")
    parser.add_argument("--filecheck", default="FileCheck")
    parser.add_argument("--clangxx", default="clang++")
    parser.add_argument("--check-suffix", "--check-suffixes", dest="suffixes", default="",
                        help="comma-separated suffixes: CHECK-MESSAGES-<SUFFIX> (an empty one: "
                             "CHECK-MESSAGES)")
    parser.add_argument("--expect-compiler-errors", action="store_true")
    parser.add_argument("--compile-fixed", action="store_true",
                        help="(the default) compile the fixed file")
    parser.add_argument("--no-compile-fixed", action="store_true",
                        help="do not compile the fixed file")
    parser.add_argument("--no-fix", action="store_true",
                        help="do not apply fix-its (needed when headers in the source tree are diagnosed)")
    parser.add_argument("source")
    parser.add_argument("checks")
    parser.add_argument("temp")
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    args = parser.parse_args(argv)

    tidy_extra, compiler_args = [], []
    if rest:
        if "--" in rest:
            i = rest.index("--")
            tidy_extra, compiler_args = rest[:i], rest[i + 1:]
        else:
            tidy_extra = rest
    if not compiler_args:
        compiler_args = ["-std=c++17"]
    elif not any(a.startswith("-std=") for a in compiler_args):
        compiler_args = ["-std=c++17"] + compiler_args

    # As in upstream's check_clang_tidy.py, an empty suffix in a list (",LIBTORCH1") names
    # the plain prefixes: CHECK-MESSAGES and CHECK-MESSAGES-LIBTORCH1.
    suffixes = [s.strip() for s in args.suffixes.split(",")] if "," in args.suffixes else \
        [s.strip() for s in args.suffixes.split(",") if s.strip()]
    tag = lambda base, s: base + ("-" + s if s else "")
    prefixes_msgs = [tag("CHECK-MESSAGES", s) for s in suffixes] or ["CHECK-MESSAGES"]
    prefixes_fixes = [tag("CHECK-FIXES", s) for s in suffixes] or ["CHECK-FIXES"]
    prefixes_notes = [tag("CHECK-NOTES", s) for s in suffixes] or ["CHECK-NOTES"]

    with open(args.source, encoding="utf-8") as f:
        text = f.read()

    def present(prefixes):
        return [p for p in prefixes if re.search(r"//\s*" + re.escape(p) + r"(-[A-Z]+)?:", text)]

    has_msgs, has_fixes, has_notes = present(prefixes_msgs), present(prefixes_fixes), present(prefixes_notes)
    if has_msgs and has_notes:
        fail("use either CHECK-MESSAGES or CHECK-NOTES, not both")

    # Strip CHECK comments but keep the line structure so [[@LINE]] stays right.
    cleaned = re.sub(r"//\s*CHECK-[A-Z0-9-]*:[^\r\n]*", "//", text)
    ext = os.path.splitext(args.source)[1] or ".cpp"
    temp = args.temp + ext
    os.makedirs(os.path.dirname(os.path.abspath(temp)), exist_ok=True)
    with open(temp, "w", encoding="utf-8") as f:
        f.write(cleaned)
    orig = temp + ".orig"
    with open(orig, "w", encoding="utf-8") as f:
        f.write(cleaned)

    base = [args.tidy] + ["--load=" + p for p in args.load]
    checks = "-*," + args.checks
    fix = [] if args.no_fix else ["--fix"]
    tidy_cmd = base + [temp] + fix + ["--checks=" + checks, "--config={}"] + tidy_extra + ["--"] + compiler_args
    code, out = run(tidy_cmd, "clang-tidy")
    print("------------------------ clang-tidy output ------------------------")
    print(out)
    print("-------------------------------------------------------------------")
    has_compiler_error = re.search(r"error: .*\[clang-diagnostic-", out) or "Found compiler error" in out
    if has_compiler_error and not args.expect_compiler_errors:
        fail("the input does not compile (see clang-diagnostic errors above)")
    if args.expect_compiler_errors and not has_compiler_error:
        fail("expected compiler errors, found none")
    if code != 0 and not has_compiler_error:
        fail("clang-tidy exited with %d" % code)

    with open(temp, encoding="utf-8") as f:
        fixed = f.read()

    diag_file = temp + ".msg"
    with open(diag_file, "w", encoding="utf-8") as f:
        f.write(out)

    def filecheck(input_file, prefixes, extra):
        cmd = [args.filecheck, "-input-file=" + input_file, args.source,
               "-check-prefixes=" + ",".join(prefixes)] + extra
        c, o = run(cmd, "FileCheck")
        if c != 0:
            print(o)
            fail("FileCheck failed for " + ",".join(prefixes))

    warn_pattern = "{{(warning|error)}}:"
    if has_notes:
        filecheck(diag_file, has_notes, ["-implicit-check-not=" + warn_pattern,
                                         "-implicit-check-not={{note}}:"])
    elif has_msgs:
        filecheck(diag_file, has_msgs, ["-implicit-check-not=" + warn_pattern])
    elif not args.expect_compiler_errors:
        if re.search(r"(warning|error): ", out):
            fail("the test has no CHECK-MESSAGES but clang-tidy reported diagnostics")

    if has_fixes:
        filecheck(temp, has_fixes, ["-strict-whitespace"])
    elif fixed != cleaned:
        diff = subprocess.run(["diff", "-u", orig, temp], stdout=subprocess.PIPE, text=True).stdout
        print(diff)
        fail("clang-tidy applied fix-its but the test has no CHECK-FIXES line")

    if fixed != cleaned:
        # --fix must be idempotent: a second run changes nothing.
        again = temp + ".again" + ext
        with open(again, "w", encoding="utf-8") as f:
            f.write(fixed)
        run(base + [again, "--fix", "--checks=" + checks, "--config={}"] + tidy_extra + ["--"] + compiler_args,
            "clang-tidy (second --fix)")
        with open(again, encoding="utf-8") as f:
            if f.read() != fixed:
                fail("a second --fix changed the file again")
        if not args.no_compile_fixed:
            c, o = run([args.clangxx, "-fsyntax-only"] + compiler_args + [temp], "clang++")
            if c != 0:
                print(o)
                fail("the fixed file does not compile")


if __name__ == "__main__":
    main()
