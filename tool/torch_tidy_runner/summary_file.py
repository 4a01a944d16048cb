"""Summary files (docs/summaries.md): reading and checking them, merging exports
into the project's table, writing it as torch-tidy does, and the part of a table
a file's analysis reads (its view, whose digest keys the cache)."""

import json
import os

from .common import sha


SUMMARIES_FILE = "torch-tidy-summaries.json"
SUMMARIES_FORMAT = "torch-tidy-summaries"
SUMMARIES_VERSION = 2
SUMMARIES_OLDEST_VERSION = 1  # version 1 files lack the facts version 2 added


SUMMARY_FUNCTION_KEYS = ("usr", "name", "file", "line", "trains", "clears_gradients", "result",
                         "result_from_values", "modes", "result_values_own", "result_read_out",
                         "result_saved", "saved_params", "carries", "carries_aside", "replaces")
SUMMARY_CALL_KEYS = ("usr", "file", "line", "guarded")
SUMMARY_NESTED_KEYS = ("param", "mode")  # the objects of "modes"


class SummaryError(Exception):
    """A summary file or cached export that is not of the format of docs/summaries.md."""


def checked_summaries(data, with_reads=False):
    """The functions, calls (and reads) of a parsed summary file, checked:
    {'functions': [...], 'calls': [...], 'reads': [...]}. Raises SummaryError."""
    if not isinstance(data, dict):
        raise SummaryError("not a JSON object")
    out = {}
    for name in ("functions", "calls"):
        items = data.get(name, [])
        if not isinstance(items, list):
            raise SummaryError("\"%s\" is not an array" % name)
        for item in items:
            if not (isinstance(item, dict) and isinstance(item.get("usr"), str)
                    and isinstance(item.get("file", ""), str)
                    and isinstance(item.get("line", 0), int)):
                raise SummaryError("an entry of \"%s\" without \"usr\", \"file\" and \"line\"" % name)
        out[name] = [dict(item) for item in items]
    reads = data.get("reads", [])
    if not (isinstance(reads, list) and all(isinstance(u, str) for u in reads)):
        raise SummaryError("\"reads\" is not an array of strings")
    if with_reads:
        out["reads"] = sorted(set(reads))
    return out


def read_summary_file(path, with_reads=False):
    """(summaries, None) of a summary file, or (None, why not)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None, "no such file"
    except (OSError, UnicodeDecodeError) as e:
        return None, "cannot read it: %s" % (getattr(e, "strerror", None) or e)
    except json.JSONDecodeError as e:
        return None, "not valid JSON: %s" % e
    if not isinstance(data, dict) or data.get("format") != SUMMARIES_FORMAT:
        return None, "not a torch-tidy summary file (\"format\" is not \"%s\")" % SUMMARIES_FORMAT
    version = data.get("version")
    if (not isinstance(version, int) or isinstance(version, bool)
            or not SUMMARIES_OLDEST_VERSION <= version <= SUMMARIES_VERSION):
        return None, "summary format version %s is not supported (run-torch-tidy reads version %d)" % (
            json.dumps(data.get("version")), SUMMARIES_VERSION)
    try:
        return checked_summaries(data, with_reads), None
    except SummaryError as e:
        return None, str(e)


def canonical(entry):
    return json.dumps(entry, sort_keys=True, ensure_ascii=False)


def merge_summaries(parts):
    """The project table of several exports (docs/summaries.md): functions keyed by
    usr, the first by (file, line) kept; calls concatenated; both sorted."""
    functions = sorted((f for p in parts for f in p["functions"]),
                       key=lambda f: (f["usr"], f.get("file", ""), f.get("line", 0), canonical(f)))
    kept, seen = [], set()
    for f in functions:
        if f["usr"] not in seen:
            seen.add(f["usr"])
            kept.append(f)
    calls = sorted((c for p in parts for c in p["calls"]),
                   key=lambda c: (c["usr"], c.get("file", ""), c.get("line", 0), canonical(c)))
    return {"functions": kept, "calls": calls}


def summaries_text(table):
    """The table as torch-tidy writes a summary file: keys in the documented order,
    one entry per line, sorted arrays, a final newline."""
    def value(v):
        if isinstance(v, dict):
            return obj(v, SUMMARY_NESTED_KEYS)
        if isinstance(v, list):
            return "[%s]" % ", ".join(value(x) for x in v)
        return json.dumps(v, ensure_ascii=False)

    def obj(entry, keys):
        names = [k for k in keys if k in entry] + sorted(k for k in entry if k not in keys)
        return "{%s}" % ", ".join("%s: %s" % (json.dumps(k), value(entry[k])) for k in names)

    def array(name, items, keys):
        if not items:
            return '  "%s": []' % name
        return '  "%s": [\n    %s\n  ]' % (name, ",\n    ".join(obj(e, keys) for e in items))
    return "{\n  \"format\": \"%s\",\n  \"version\": %d,\n%s,\n%s\n}\n" % (
        SUMMARIES_FORMAT, SUMMARIES_VERSION,
        array("functions", table["functions"], SUMMARY_FUNCTION_KEYS),
        array("calls", table["calls"], SUMMARY_CALL_KEYS))


def same_file(a, b):
    return bool(a) and os.path.normpath(a) == b


class SummaryTable:
    """A merged table, indexed by usr."""

    def __init__(self, table):
        self.table = table
        self.functions = {f["usr"]: f for f in table["functions"]}
        self.calls = {}
        for c in table["calls"]:
            self.calls.setdefault(c["usr"], []).append(c)

    def view(self, file, reads):
        """The entries a file's analysis reads (reads: what it reads and what it
        defines, as Reads): the functions entries of the functions it calls without
        defining them, and the calls of the functions it defines, but those the file
        wrote itself."""
        v = {}
        for u in reads.reads:
            if u not in reads.defines:
                f = self.functions.get(u)
                if f is not None and not same_file(f.get("file"), file):
                    v["function " + u] = f
            else:
                calls = [c for c in self.calls.get(u, ()) if not same_file(c.get("file"), file)]
                if calls:
                    v["calls " + u] = calls
        return v

    def name(self, usr):
        f = self.functions.get(usr)
        return f.get("name") if f is not None and f.get("name") else usr


class Reads:
    """What a file's analysis reads of a table: the USRs of its export's `reads`, and
    which of them it defines (its `functions`)."""

    def __init__(self, reads, defines):
        self.reads = tuple(sorted(set(reads)))
        self.defines = frozenset(defines)

    @staticmethod
    def of(export):
        return Reads(export["reads"], [f["usr"] for f in export["functions"]])


def facts_view(view):
    """The functions entries of a view: what a file's facts (its export) depend on."""
    return {k: v for k, v in view.items() if k.startswith("function ")}


def view_digest(view):
    return sha(json.dumps(sorted(view.items()), sort_keys=True, ensure_ascii=False).encode())[:32]


def view_changes(old, new, table):
    """What differs between two views, as names for a message."""
    names = []
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            kind, usr = k.split(" ", 1)
            n = table.name(usr)
            names.append(n if kind == "function" else "calls of %s" % n)
    names = list(dict.fromkeys(names))
    return ", ".join(names[:3]) + (" and %d more" % (len(names) - 3) if len(names) > 3 else "")


def agrees(export, index):
    """Whether a table (SummaryTable) holds what a file exported: each of its
    functions entries (the table's entry of the same place is the same) and each
    of its calls. --summaries-from checks a merged table with it."""
    for f in export["functions"]:
        t = index.functions.get(f["usr"])
        if t is None or ((t.get("file"), t.get("line")) == (f.get("file"), f.get("line")) and t != f):
            return False
    calls = {canonical(c) for c in index.table["calls"]}
    return all(canonical(c) in calls for c in export["calls"])
