#!/usr/bin/env python3
"""Shrinks a crashing or hanging mutant (from test/fuzz/mutate.py --out) while it
still crashes or hangs: first whole chunks of lines, then single lines, then
single tokens are deleted, as long as any deletion keeps the failure.

  reduce.py /tmp/crashes/crash-000.log -o /tmp/crash-000.min.cpp

The .log's second line is the torch-tidy command; it is rerun on a scratch copy.
A crash stays a crash only with the same signal or the same first crash marker
line (so the reduction does not drift to a different bug).
"""

import argparse
import os
import re
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402


def signature(verdict, out):
    if verdict != "crash":
        return verdict
    m = re.search(r"killed by signal (\d+)", out)
    return "crash:" + (m.group(1) if m else "banner")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("log", help="a crash-NNN.log or hang-NNN.log from mutate.py --out")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--timeout", type=float, default=30.0)
    args = p.parse_args()

    with open(args.log, encoding="utf-8") as f:
        f.readline()
        cmd = shlex.split(f.readline())
    src = [c for c in cmd if c.endswith(".cpp")][-1]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    work = tempfile.mkdtemp(prefix="torch-tidy-reduce-")
    scratch = os.path.join(work, "r.cpp")
    cmd = [scratch if c == src else c for c in cmd]
    runs = [0]

    def verdict_of(candidate):
        with open(scratch, "w", encoding="utf-8") as f:
            f.write(candidate)
        runs[0] += 1
        verdict, out, _ = mutate.run_tidy(cmd, args.timeout)
        return signature(verdict, out)

    want = verdict_of(text)
    if want == "ok":
        sys.stderr.write("reduce.py: the input does not fail\n")
        return 2
    print("failure: %s" % want, flush=True)

    def shrink(units, join):
        chunk = max(1, len(units) // 2)
        while chunk >= 1:
            i = 0
            while i < len(units):
                candidate = units[:i] + units[i + chunk:]
                if candidate and verdict_of(join(candidate)) == want:
                    units = candidate
                else:
                    i += chunk
            chunk //= 2
        return units

    lines = shrink(text.split("\n"), "\n".join)
    text = "\n".join(lines)
    spans = [m.group(0) for m in mutate.TOKEN.finditer(text)]
    # Tokens are rejoined with single spaces and line breaks kept where possible:
    # reduce by token only when the line pass left little.
    if len(spans) < 400:
        pieces = re.findall(r"\s+|" + mutate.TOKEN.pattern, text)
        tokens = [t for t in pieces]
        tokens = shrink(tokens, "".join)
        text = "".join(tokens)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    print("%d torch-tidy runs; %d lines left: %s" % (runs[0], text.count("\n") + 1, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
