#!/usr/bin/env python3
"""usage: add_to_database.py BUILD/compile_commands.json SOURCE

Appends SOURCE to the sample project's compilation database with the compile
command of its first entry (for the test of a file added since a revision)."""
import json
import os
import sys

path, source = sys.argv[1], os.path.abspath(sys.argv[2])
with open(path) as f:
    db = json.load(f)
first = db[0]
db.append({"directory": first["directory"], "file": source,
           "arguments": [source if a == first["file"] else a for a in first["arguments"]]})
with open(path, "w") as f:
    json.dump(db, f, indent=1)
