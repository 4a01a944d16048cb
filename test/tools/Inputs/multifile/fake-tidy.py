#!/usr/bin/env python3
"""A torch-tidy stand-in for run-torch-tidy's rounds of summaries (docs/summaries.md).

Reads a toy language, one function per line, which the preprocessor passes through:

  DEF(a) CALLS(b) TRAINS     a() calls b() and runs a backward pass itself
  LOOP CALLS(a)              a loop that calls a(): a warning when a() trains

A function trains when its line says TRAINS or it calls a function that trains:
defined in the file, or in the --summaries table. Writes --export-summaries as
torch-tidy does, and appends "<file> <summaries table's functions>" to
$FAKE_TIDY_LOG for each analysis.
"""
import json
import os
import re
import sys

args = sys.argv[1:]
if "--version" in args:
    print("LLVM (http://llvm.org/):\n  LLVM version 19.1.7")
    sys.exit(0)
if "--help" in args:  # FAKE_TIDY_NO_SUMMARIES: a torch-tidy older than summaries
    print("USAGE: fake-tidy [options] <source0> [... <sourceN>]")
    if not os.environ.get("FAKE_TIDY_NO_SUMMARIES"):
        print("  --summaries=<file>\n  --export-summaries=<file>")
    sys.exit(0)
if "--list-checks" in args:
    print("Enabled checks:\n    torch-fake")
    sys.exit(0)
if "--dump-config" in args:
    print("---\nChecks: 'torch-fake'\n...")
    sys.exit(0)

opts = {}
for a in args:
    m = re.match(r"--(summaries|export-summaries)=(.*)", a)
    if m:
        opts[m.group(1)] = m.group(2)
path = os.path.abspath(args[-1])
table = {"functions": [], "calls": []}
if "summaries" in opts:
    with open(opts["summaries"]) as f:
        table = json.load(f)
external = {f["usr"]: f for f in table["functions"]}

defs, loops = {}, []
with open(path) as f:
    for n, line in enumerate(f, 1):
        calls = re.findall(r"CALLS\((\w+)\)", line)
        m = re.match(r"\s*DEF\((\w+)\)", line)
        if m:
            defs[m.group(1)] = (n, calls, "TRAINS" in line)
        elif line.strip().startswith("LOOP"):
            loops.append((n, calls))
usr = lambda name: "c:@F@%s#" % name
trains = {name: own for name, (_, _, own) in defs.items()}
changed = True
while changed:
    changed = False
    for name, (_, calls, _) in defs.items():
        if not trains[name] and any(trains.get(c) if c in defs else
                                    external.get(usr(c), {}).get("trains") for c in calls):
            trains[name] = changed = True
for n, calls in loops:
    for c in calls:
        if trains.get(c) if c in defs else external.get(usr(c), {}).get("trains"):
            print("%s:%d:1: warning: the loop trains through '%s' [torch-fake]" % (path, n, c))
if os.environ.get("FAKE_TIDY_LOG"):
    with open(os.environ["FAKE_TIDY_LOG"], "a") as log:
        log.write("%s %s\n" % (os.path.basename(path), " ".join(
            sorted("%s%s" % (f["name"], "+" if f["trains"] else "") for f in table["functions"]))))
if "export-summaries" in opts:
    functions = [{"usr": usr(name), "name": name, "file": path, "line": n, "trains": trains[name],
                  "clears_gradients": False, "result": "unknown", "result_from_values": False}
                 for name, (n, _, _) in defs.items()]
    calls = [{"usr": usr(c), "file": path, "line": n, "guarded": False}
             for n, cs in [(d[0], d[1]) for d in defs.values()] + loops for c in cs if c not in defs]
    out = {"format": "torch-tidy-summaries", "version": 1,
           "functions": sorted(functions, key=lambda f: f["usr"]),
           "calls": sorted(calls, key=lambda c: (c["usr"], c["file"], c["line"])),
           "reads": sorted({f["usr"] for f in functions} | {c["usr"] for c in calls})}
    with open(opts["export-summaries"], "w") as f:
        json.dump(out, f, indent=2)
