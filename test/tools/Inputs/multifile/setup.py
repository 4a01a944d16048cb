#!/usr/bin/env python3
"""usage: setup.py DEST MOCK_TORCH_DIR PROJECT

Copies a multi-file project to DEST/src and writes its compilation database,
for the mock LibTorch headers in MOCK_TORCH_DIR, twice: DEST/build (the files
in name order) and DEST/build-reversed (the same, in reverse order). PROJECT:
`multifile` is test/checks/Inputs/multifile (the summaries checks' project:
trainer.cpp, losses.cpp, steps.cpp, eval.cpp), `cycle` is Inputs/multifile/cycle
(a cycle of calls across two files), `chainN` N files of fake-tidy.py's toy
language, each calling the next. Also writes DEST/.clang-tidy (torch-* only).
"""
import json
import os
import shutil
import sys

dest, mock, project = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(dest, ignore_errors=True)
if project.startswith("chain"):
    # For fake-tidy.py: main.cpp's loop calls f0(), f0() calls f1(), ...,
    # f<N-1>() trains. Each round of a run from scratch learns one more.
    n = int(project[len("chain"):])
    os.makedirs(os.path.join(dest, "src"))
    for i in range(n):
        with open(os.path.join(dest, "src", "f%d.cpp" % i), "w") as f:
            f.write("DEF(f%d)%s\n" % (i, " CALLS(f%d)" % (i + 1) if i + 1 < n else " TRAINS"))
    with open(os.path.join(dest, "src", "main.cpp"), "w") as f:
        f.write("LOOP CALLS(f0)\n")
else:
    source = {"multifile": os.path.join(here, "..", "..", "..", "checks", "Inputs", "multifile"),
              "cycle": os.path.join(here, "cycle")}[project]
    shutil.copytree(source, os.path.join(dest, "src"))
with open(os.path.join(dest, ".clang-tidy"), "w") as f:
    f.write("Checks: '-*,torch-*'\n")
files = sorted(f for f in os.listdir(os.path.join(dest, "src")) if f.endswith(".cpp"))
for build, order in (("build", files), ("build-reversed", files[::-1])):
    os.makedirs(os.path.join(dest, build))
    db = [{"directory": os.path.join(dest, build), "file": "../src/" + f,
           "arguments": ["c++", "-std=c++17", "-isystem", mock, "-I../src", "-O2",
                         "-o", f[:-4] + ".o", "-c", "../src/" + f]} for f in order]
    with open(os.path.join(dest, build, "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=1)
