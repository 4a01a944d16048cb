#!/usr/bin/env python3
"""usage: sarif_project.py DEST INCLUDE_FLAGS... -- SOURCE...

Copies each SOURCE into 'DEST/src dir/Größe/' (a directory name with a space
and non-ASCII letters, which SARIF must percent-encode) and writes
DEST/build/compile_commands.json for them (-std=c++17 plus INCLUDE_FLAGS).
A SOURCE given as NAME=PATH is copied as NAME."""
import json
import os
import shutil
import sys

dest = os.path.abspath(sys.argv[1])
sep = sys.argv.index("--")
flags, sources = sys.argv[2:sep], sys.argv[sep + 1:]
src_dir = os.path.join(dest, "src dir", "Größe")
os.makedirs(src_dir, exist_ok=True)
os.makedirs(os.path.join(dest, "build"), exist_ok=True)
entries = []
for s in sources:
    name, _, path = s.rpartition("=")
    target = os.path.join(src_dir, name or os.path.basename(path))
    shutil.copyfile(path, target)
    entries.append({"directory": os.path.join(dest, "build"), "file": target,
                    "arguments": ["c++", "-std=c++17"] + flags + ["-c", target]})
with open(os.path.join(dest, "build", "compile_commands.json"), "w", encoding="utf-8") as f:
    json.dump(entries, f, indent=1, ensure_ascii=False)
