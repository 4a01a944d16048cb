"""The reports' common ground and the text and JSON reports: the diagnostics once
each, in order, paths relative to the source root, source lines for columns."""

import json
import os
import subprocess

from . import common
from .common import PROG


def source_root(explicit):
    if explicit:
        return os.path.abspath(explicit)
    try:
        r = subprocess.run(["git", "rev-parse", "--show-toplevel"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True)
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip()
    except OSError:
        pass
    return os.getcwd()


def rel(path, root):
    if path and (path == root or path.startswith(root.rstrip(os.sep) + os.sep)):
        return os.path.relpath(path, root)
    return path


def unique_diagnostics(results):
    seen, out = set(), []
    for r in results:
        for d in r.diagnostics:
            key = (d["file"], d["line"], d["column"], d["level"], d["check"], d["message"],
                   tuple((n["file"], n["line"], n["column"], n["message"]) for n in d["notes"]))
            if key not in seen:
                seen.add(key)
                out.append(d)
    out.sort(key=lambda d: (d["file"] or "", d["line"], d["column"], d["check"], d["message"]))
    return out


def text_report(diags):
    cwd = os.getcwd()
    lines = []
    for d in diags:
        for x in [d] + d["notes"]:
            loc = "%s:%d:%d: " % (rel(x["file"], cwd), x["line"], x["column"]) if x["file"] else ""
            lines.append("%s%s: %s%s" % (loc, x["level"], x["message"],
                                         " [%s]" % x["check"] if x.get("check") else ""))
            lines.extend(x["snippet"])
    return "\n".join(lines) + ("\n" if lines else "")


def json_report(diags, results, root, tidy, elapsed):
    def loc(x):
        return {"file": rel(x["file"], root), "line": x["line"], "column": x["column"]}
    return json.dumps({
        "tool": {"name": PROG, "version": common.VERSION, "torchTidy": tidy},
        "sourceRoot": root,
        "summary": summary_counts(diags, results, elapsed),
        "files": [{"file": rel(r.entry.file, root), "status": r.status, "pch": r.pch,
                   "seconds": round(r.seconds, 2), "cached": r.cached} for r in results],
        "diagnostics": [dict(loc(d), level=d["level"], check=d["check"], message=d["message"],
                             notes=[dict(loc(n), message=n["message"]) for n in d["notes"]],
                             **({"fingerprint": d["fingerprint"]} if "fingerprint" in d else {}))
                        for d in diags],
    }, indent=2) + "\n"


def summary_counts(diags, results, elapsed):
    return {"files": len(results),
            "warnings": sum(d["level"] == "warning" for d in diags),
            "errors": sum(d["level"] == "error" for d in diags),
            "filesWithPch": sum(r.pch for r in results),
            "seconds": round(elapsed, 1)}


class SourceLines:
    """Lines of source files as bytes, read once, for column conversion."""

    def __init__(self):
        self.cache = {}

    def data(self, path):
        if path not in self.cache:
            try:
                with open(path, "rb") as f:
                    self.cache[path] = f.read()
            except OSError:
                self.cache[path] = None
        return self.cache[path]

    def line(self, path, line):
        data = self.data(path)
        if data is None:
            return None
        lines = data.split(b"\n")
        return lines[line - 1] if 1 <= line <= len(lines) else None

    def column(self, path, line, byte_column):
        """clang's 1-based byte column as a 1-based UTF-16 column."""
        text = self.line(path, line)
        if text is None or byte_column < 1:
            return byte_column
        prefix = text[:byte_column - 1].decode("utf-8", errors="replace")
        return len(prefix.encode("utf-16-le")) // 2 + 1

    def position(self, path, offset):
        """(line, byte column), both 1-based, of a byte offset."""
        data = self.data(path) or b""
        offset = min(offset, len(data))
        line = data.count(b"\n", 0, offset) + 1
        return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1

    def text(self, path, offset, length):
        data = self.data(path) or b""
        return data[offset:offset + length].decode("utf-8", errors="replace")
