#!/usr/bin/env python3
"""usage: cache_tamper.py MODE CACHE_DIR

Damages every entry of a run-torch-tidy result cache the way a full disk, a
killed writer, a bad copy or a stray edit would, to show that a damaged entry
is a miss and never a wrong report. Prints how many entries it changed.

  truncate   cut each entry in half
  garbage    replace each entry with bytes that are not an entry
  empty      make each entry an empty file
  checksum   change a diagnostic message (or the status) inside each result, keeping
             the old checksum
  swap       move each result entry's contents to another result's name
  nofields   a well-formed result entry (right key and checksum) without its fields
  deps       a manifest that lists a header that no longer exists
"""
import hashlib
import json
import os
import sys
import zlib

MAGIC = b"TTCACHE1\n"


def entries(root, prefix):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files if f.startswith(prefix)]
    return sorted(out)


def load(path):
    with open(path, "rb") as f:
        return json.loads(zlib.decompress(f.read()[len(MAGIC):]))


def save(path, entry):
    with open(path, "wb") as f:
        f.write(MAGIC + zlib.compress(json.dumps(entry).encode()))


def checksum(body):
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def main(mode, root):
    changed = 0
    if mode == "swap":
        results = entries(root, "r-")
        blobs = [open(p, "rb").read() for p in results]
        for i, p in enumerate(results):
            if len(results) > 1:
                with open(p, "wb") as f:
                    f.write(blobs[(i + 1) % len(results)])
                changed += 1
        print("changed %d entries" % changed)
        return 0
    for p in entries(root, "r-" if mode in ("checksum", "nofields") else "m-" if mode == "deps" else ""):
        data = open(p, "rb").read()
        if mode == "truncate":
            data = data[:len(data) // 2]
        elif mode == "garbage":
            data = b"\x00not a cache entry\xff" * 7
        elif mode == "empty":
            data = b""
        elif mode == "checksum":
            e = load(p)
            if e["body"]["diagnostics"]:
                e["body"]["diagnostics"][0]["message"] = "a message torch-tidy never wrote"
            else:
                e["body"]["status"] = "crashed"
            save(p, e)
            changed += 1
            continue
        elif mode == "nofields":
            e = load(p)
            e["body"] = {"status": "ok"}
            e["sha"] = checksum(e["body"])
            save(p, e)
            changed += 1
            continue
        elif mode == "deps":
            e = load(p)
            e["body"]["deps"].append(["/nonexistent/torch-tidy-test/gone.h", "0" * 32])
            e["sha"] = checksum(e["body"])
            save(p, e)
            changed += 1
            continue
        else:
            sys.stderr.write("cache_tamper.py: unknown mode '%s'\n" % mode)
            return 2
        with open(p, "wb") as f:
            f.write(data)
        changed += 1
    print("changed %d entries" % changed)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
