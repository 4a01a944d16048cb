#!/usr/bin/env python3
"""The lit suite's parts (test/lit-parts.txt) cover every lit test exactly once.

ctest runs lit once per part (test/CMakeLists.txt), each with lit's --filter set to the
part's regex. A test no part's regex selects would silently never run; a test two parts
select would run twice, at the same time, in the same %t directory. This lists lit's
tests (`lit --show-tests`) and fails, naming the test, on either.

  lit_parts.py --lit LIT.py --parts test/lit-parts.txt BUILD/test
Exit status: 0 a partition, 1 not, 2 bad arguments.
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def read_parts(path):
    parts = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, 3)
            if len(fields) != 4 or not fields[1].isdigit():
                raise SystemExit("lit_parts: %s:%d: expected '<name> <timeout> <labels> <regex>'"
                                 % (path, number))
            parts.append((fields[0], re.compile(fields[3])))
    return parts


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lit", required=True)
    p.add_argument("--parts", required=True)
    p.add_argument("suite", help="the lit suite's build directory")
    args = p.parse_args()
    for path in (args.lit, args.parts, args.suite):
        if not os.path.exists(path):
            print("lit_parts: no such file: %s" % path, file=sys.stderr)
            return 2
    parts = read_parts(args.parts)
    proc = subprocess.run([sys.executable, args.lit, "--show-tests", args.suite],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tests = [line.strip() for line in proc.stdout.splitlines() if " :: " in line]
    if proc.returncode != 0 or not tests:
        print("lit_parts: lit --show-tests failed:\n" + proc.stdout, file=sys.stderr)
        return 1
    failures = 0
    counts = collections.Counter()
    for test in tests:
        owners = [name for name, regex in parts if regex.search(test)]
        if len(owners) != 1:
            failures += 1
            print("FAIL %s: in %s" % (test, ", ".join(owners) if owners else "no part"))
        counts.update(owners)
    for name, _ in parts:
        if counts[name] == 0:
            failures += 1
            print("FAIL part %s selects no test" % name)
        print("part %s: %d tests" % (name, counts[name]))
    print("tests: %d, parts: %d, failures: %d" % (len(tests), len(parts), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
