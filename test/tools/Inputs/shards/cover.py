#!/usr/bin/env python3
"""usage: cover.py COMPILE_COMMANDS.json SHARD_SUMMARIES.json...

Checks that the shards' summaries files (run-torch-tidy --summaries-only
--shard K/N) hold every file of the database exactly once, and prints how many
files each shard has."""
import json
import os
import sys

with open(sys.argv[1]) as f:
    database = {os.path.normpath(os.path.join(e["directory"], e["file"])) for e in json.load(f)}
seen, status = {}, 0
for path in sys.argv[2:]:
    with open(path) as f:
        data = json.load(f)
    for file in data["files"]:
        if file in seen:
            print("%s is in shards %s and %s" % (file, seen[file], data["shard"]))
            status = 1
        seen[file] = data["shard"]
    print("shard %s: %d files" % (data["shard"], len(data["files"])))
for file in sorted(database - set(seen)):
    print("%s is in no shard" % file)
    status = 1
print("%d of %d files, each in one shard" % (len(seen), len(database)) if status == 0 else "not covered")
sys.exit(status)
