#!/usr/bin/env python3
# A stand-in for torch-tidy that tests bench/metamorphic.py's scoring: it warns on every
# line carrying an EXPECT marker (as a check that finds the bug), except in variants where
# a statement was moved into a helper (it "loses" those); in a variant whose identifiers
# were renamed it also warns inside the negative unit 'cleared' (a "false positive").
import re, sys
src = [a for a in sys.argv[1:] if a.endswith(".cpp")][0]
text = open(src).read()
lost = "tt_helper_" in text
renamed = re.search(r"\bfn\d+_\(", text) is not None
lines = text.split("\n")
for i, l in enumerate(lines, 1):
    m = re.search(r"EXPECT#\d+: ([\w-]+)", l)
    if m and not lost:
        print("%s:%d:5: warning: stand-in [%s]" % (src, i, m.group(1)))
    if renamed and l == "// @unit cleared changed":
        print("%s:%d:1: warning: stand-in [torch-missing-zero-grad]" % (src, i + 1))
