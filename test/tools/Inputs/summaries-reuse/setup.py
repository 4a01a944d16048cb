#!/usr/bin/env python3
"""usage: setup.py DEST PROJECT

Writes a small project of Inputs/multifile/fake-tidy.py's toy language to
DEST/src, every file including src/common.h (so editing it changes every file
for the result cache), and DEST/build/compile_commands.json. PROJECT:

  chain  main.cpp's loop calls step() (step.cpp), which calls loss()
         (loss.cpp), which trains
  cycle  ping() (ping.cpp) calls pong() (pong.cpp), which calls ping() back
         and trains; train.cpp's loop calls ping()
  pair   b() (b.cpp) calls a() (a.cpp), which trains; main.cpp's loop calls b()
"""
import json
import os
import shutil
import sys

PROJECTS = {
    "chain": {"main.cpp": "LOOP CALLS(step)", "step.cpp": "DEF(step) CALLS(loss)",
              "loss.cpp": "DEF(loss) TRAINS"},
    "cycle": {"train.cpp": "LOOP CALLS(ping)", "ping.cpp": "DEF(ping) CALLS(pong)",
              "pong.cpp": "DEF(pong) CALLS(ping) TRAINS"},
    "pair": {"main.cpp": "LOOP CALLS(b)", "b.cpp": "DEF(b) CALLS(a)", "a.cpp": "DEF(a) TRAINS"},
}

dest, project = sys.argv[1:3]
shutil.rmtree(dest, ignore_errors=True)
os.makedirs(os.path.join(dest, "src"))
os.makedirs(os.path.join(dest, "build"))
with open(os.path.join(dest, "src", "common.h"), "w") as f:
    f.write("// shared by every file\n")
files = sorted(PROJECTS[project])
for name in files:
    with open(os.path.join(dest, "src", name), "w") as f:
        f.write('#include "common.h"\n%s\n' % PROJECTS[project][name])
with open(os.path.join(dest, "build", "compile_commands.json"), "w") as f:
    json.dump([{"directory": os.path.join(dest, "build"), "file": "../src/" + name,
                "arguments": ["c++", "-std=c++17", "-c", "../src/" + name]} for name in files],
              f, indent=1)
