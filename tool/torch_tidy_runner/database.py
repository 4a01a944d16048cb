"""The compilation database: finding compile_commands.json, reading its entries
(one per file) and selecting the files to analyse (FILE_REGEX, --paths, --exclude,
--shard)."""

import hashlib
import json
import os
import re
import shlex

from .common import InputError


def find_database(build_path):
    if build_path:
        path = os.path.abspath(build_path)
        if os.path.isdir(path):
            path = os.path.join(path, "compile_commands.json")
        if not os.path.isfile(path):
            raise InputError("no compile_commands.json at %s (configure your CMake build with "
                             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON and pass its build directory with -p)"
                             % path)
        return path
    d = os.getcwd()
    while True:
        path = os.path.join(d, "compile_commands.json")
        if os.path.isfile(path):
            return path
        parent = os.path.dirname(d)
        if parent == d:
            raise InputError("no compile_commands.json in the current directory or its parents "
                             "(pass the build directory with -p)")
        d = parent


class Entry:
    def __init__(self, directory, file, args):
        self.directory = directory
        self.file = file  # absolute, normalised
        self.args = args  # full argv, compiler first
        self.count = 1    # entries in the database for this file


def load_database(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("cannot read %s: %s" % (path, e))
    except json.JSONDecodeError as e:
        raise InputError("%s is not valid JSON: %s" % (path, e))
    if not isinstance(data, list):
        raise InputError("%s must hold a JSON array of compile commands" % path)
    entries = {}
    for i, item in enumerate(data):
        if not (isinstance(item, dict) and isinstance(item.get("directory"), str)
                and isinstance(item.get("file"), str)
                and (isinstance(item.get("arguments"), list) or isinstance(item.get("command"), str))):
            raise InputError("%s: entry %d lacks 'directory', 'file' and 'arguments' or 'command'"
                             % (path, i + 1))
        directory = os.path.normpath(os.path.join(os.path.dirname(path), item["directory"]))
        file = os.path.normpath(os.path.join(directory, item["file"]))
        if "arguments" in item:
            args = [str(a) for a in item["arguments"]]
        else:
            try:
                args = shlex.split(item["command"])
            except ValueError as e:
                raise InputError("%s: entry %d: cannot split 'command': %s" % (path, i + 1, e))
        if file in entries:
            entries[file].count += 1
        else:
            entries[file] = Entry(directory, file, args)
    return list(entries.values())


HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc", ".cuh")


def select_paths(entries, paths, db_path):
    by_file = {e.file: e for e in entries}
    selected, missing = [], []
    absent = [p for p in paths if not os.path.isfile(p)]
    if absent:
        raise InputError("no such file: %s" % ", ".join("'%s'" % a for a in absent))
    for p in paths:
        f = os.path.normpath(os.path.abspath(p))
        if f in by_file:
            if by_file[f] not in selected:
                selected.append(by_file[f])
        elif not f.endswith(HEADER_EXTENSIONS):
            missing.append(p)
    if missing:
        raise InputError("%s: not in %s (re-run CMake so that the compilation database lists it)"
                         % (", ".join("'%s'" % m for m in missing), db_path))
    return selected


def select_entries(entries, regexes, excludes, db_path, paths=False):
    selected = entries
    if paths:
        selected = select_paths(entries, regexes, db_path)
    elif regexes:
        unmatched = []
        keep = set()
        for r in regexes:
            rx = re.compile(r)
            hits = [e.file for e in entries if rx.search(e.file)]
            if not hits:
                unmatched.append(r)
            keep.update(hits)
        if unmatched:
            raise InputError("%s: not in %s (run-torch-tidy analyses the files of the "
                             "compilation database; FILE_REGEX arguments select among them)"
                             % (", ".join("'%s'" % u for u in unmatched), db_path))
        selected = [e for e in entries if e.file in keep]
    for r in excludes:
        rx = re.compile(r)
        selected = [e for e in selected if not rx.search(e.file)]
    return selected


# --- Shards: --shard K/N ----------------------------------------------------------------
#
# A CI job matrix analyses the database in N shards. A file's shard depends on its own
# path only (a hash of the path relative to the database's directory, '/'-separated),
# never on the order of the database or on the other files: adding a file moves no
# other file, and every machine with the same checkout splits alike.

SHARD_RE = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text):
    """(K, N) of 'K/N' (1 <= K <= N), or None."""
    m = SHARD_RE.fullmatch(text or "")
    if not m:
        return None
    k, n = int(m.group(1)), int(m.group(2))
    return (k, n) if 1 <= k <= n else None


def shard_of(file, db_dir, n):
    """The 1-based shard of a file among n."""
    name = os.path.relpath(file, db_dir).replace(os.sep, "/")
    return int(hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16], 16) % n + 1


def select_shard(entries, shard, db_dir):
    """The entries of shard (K, N), in the database's order."""
    k, n = shard
    return [e for e in entries if shard_of(e.file, db_dir, n) == k]
