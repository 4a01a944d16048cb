#!/usr/bin/env python3
"""usage: setup.py DEST MOCK_TORCH_DIR

Copies this project (sources that include their own header first, which
includes LibTorch) to DEST and writes DEST/build/compile_commands.json for a
private copy of the mock LibTorch headers in DEST/mock (a precompiled header
checks that its headers did not change)."""
import json
import os
import shutil
import sys

dest, mock = sys.argv[1:3]
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(dest, ignore_errors=True)
for d in ("include", "src"):
    shutil.copytree(os.path.join(here, d), os.path.join(dest, d))
shutil.copytree(mock, os.path.join(dest, "mock"))
os.makedirs(os.path.join(dest, "build"))
# The torch-* checks only: a configuration above %t (this repository's own
# .clang-tidy, when the build tree is inside it) must not add its checks.
with open(os.path.join(dest, ".clang-tidy"), "w") as f:
    f.write("Checks: '-*,torch-*'\n")
files = ["train.cpp", "eval.cpp", "clean.cpp", "configured.cpp", "clash.cpp"]
with open(os.path.join(dest, "build", "compile_commands.json"), "w") as f:
    json.dump([{"directory": os.path.join(dest, "build"), "file": "../src/" + name,
                "arguments": ["c++", "-std=c++17", "-I../include", "-isystem",
                              os.path.join(dest, "mock"), "-O2", "-o", name[:-4] + ".o",
                              "-c", "../src/" + name]} for name in files], f, indent=1)
