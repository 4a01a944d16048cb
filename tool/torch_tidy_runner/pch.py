"""Precompiled headers of the LibTorch includes: grouping the files that can share
one (same flags, same LibTorch preamble), building it once per group with the
clang++ of torch-tidy's LLVM, reusing a fresh one from --pch-dir, and refusing it
where it could change a file's meaning (include guards LibTorch names, LibTorch
through -I under the header filter)."""

import hashlib
import json
import os
import re
import subprocess
import threading
import time

from .preamble import non_system_torch_headers, pch_flags, preamble_torch_includes
from .tidy import tidy_options


class PchGroup:
    def __init__(self, key, entry, flags, includes):
        self.key = key
        self.directory = entry.directory
        self.compiler = entry.args[0]
        self.flags = flags
        self.includes = includes
        self.entries = []
        self.path = None      # the .pch once built
        self.build_flags = []
        self.error = None     # why building it failed
        self.seconds = 0.0
        self.done = threading.Event()
        self.guards = {}      # include guards defined before its includes: {macro: where}
        self.guards_used = {} # those scanned in its headers: {macro: a header naming it, or None}


def plan_pch(args, tidy, entries, clang, pch_dir, log, groups=None):
    """Maps each entry's file to its PchGroup (only groups worth building). groups:
    the groups of earlier calls (summaries rounds), which a file with the same flags
    and includes joins; a new group is built when at least --pch-min-files of this
    call's files share it."""
    include_rx = re.compile(args.pch_include_regex)
    groups = {} if groups is None else groups
    members = {}
    filter_cache = {}
    texts, guards, through = {}, {}, {}
    for e in entries:
        flags, why = pch_flags(e)
        includes = None
        if flags is not None:
            includes, why, guards[e.file], through[e.file] = preamble_torch_includes(
                e, flags, include_rx, texts)
            if includes == ():
                why = "no LibTorch include"
        if flags is not None and includes:
            headers = non_system_torch_headers(e, flags, includes)
            if headers:
                # Compiler warnings inside a PCH are not replayed: with LibTorch
                # outside the system headers they matter when the header filter
                # shows them.
                hf = args.header_filter
                if hf is None:
                    hf = filter_cache.get(os.path.dirname(e.file))
                    if hf is None:
                        hf = effective_header_filter(tidy, args, e)
                        filter_cache[os.path.dirname(e.file)] = hf
                if hf and any(re.search(hf, h) for h in headers):
                    includes, why = None, "LibTorch is included with -I and the header filter shows it"
        if not includes:
            log(e.file, "no PCH: %s" % why)
            continue
        key = (e.directory, e.args[0], tuple(flags), includes)
        if key not in groups:
            groups[key] = PchGroup(key, e, flags, includes)
        members.setdefault(key, []).append(e)
    plan = {}
    for key, files in members.items():
        g = groups[key]
        if g.path is None:
            if len(files) < args.pch_min_files:
                for e in files:
                    log(e.file, "no PCH: only %d file(s) share its flags and LibTorch includes "
                                "(--pch-min-files=%d)" % (len(files), args.pch_min_files))
                continue
            g.build_flags = ["-fpch-instantiate-templates"] if args.pch_instantiate else []
            digest = hashlib.sha256(repr((clang, g.key, g.build_flags)).encode()).hexdigest()[:16]
            g.path = os.path.join(pch_dir, "torch-%s.pch" % digest)
        elif any(m not in g.guards_used for e in files for m in guards[e.file]):
            # Built in an earlier call (a summaries round) for files without these
            # include guards: check them now.
            g.done.wait()
            if g.error is None:
                scan_guards(g, {m: w for e in files for m, w in guards[e.file].items()})
        kept = []
        for e in files:
            used = [m for m in sorted(guards[e.file]) if g.guards_used.get(m)]
            if used:
                log(e.file, "no PCH: the include guard %s (%s) is named by LibTorch's %s"
                            % (used[0], guards[e.file][used[0]], os.path.relpath(g.guards_used[used[0]])))
            else:
                kept.append(e)
                g.guards.update(guards[e.file])
        g.entries.extend(kept)
        for e in kept:
            plan[e.file] = g
            via = " (through %s)" % ", ".join(os.path.relpath(h) for h in through[e.file]) \
                if through[e.file] else ""
            log(e.file, "PCH of %s shared by %d files%s" % (" ".join(g.includes), len(files), via))
    return plan


def scan_guards(group, guards):
    """Records in group.guards_used, for each include guard macro not checked yet,
    the first of the PCH's headers (its dependency list) that names it, or None. A
    macro that a LibTorch header names could configure it when the project defines
    it first."""
    todo = sorted(m for m in guards if m not in group.guards_used)
    if not todo:
        return
    found = dict.fromkeys(todo)
    try:
        with open(group.path + ".inputs.json", encoding="utf-8") as f:
            headers = sorted(json.load(f))
    except (OSError, ValueError):
        headers = None
    if headers is None:  # nothing to check against: assume the worst
        found = {m: group.path for m in todo}
    else:
        rx = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, todo)))
        for h in headers:
            try:
                with open(h, encoding="utf-8", errors="replace") as f:
                    for m in rx.findall(f.read()):
                        if found[m] is None:
                            found[m] = h
            except OSError:
                pass
            if all(found.values()):
                break
    group.guards_used.update(found)


def effective_header_filter(tidy, args, entry):
    """The headers whose diagnostics torch-tidy reports for ENTRY, as one regex for
    re.search: its effective HeaderFilterRegex (by default the project's headers) less its
    ExcludeHeaderFilterRegex (by default LibTorch's headers found through -I)."""
    cmd = [tidy, "--dump-config"] + tidy_options(args) + [entry.file]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ".*"

    def option(name):
        m = re.search(r"^%s:\s*'?(.*?)'?\s*$" % name, out, re.M)
        return m.group(1).replace("''", "'") if m else ""
    header_filter, exclude = option("HeaderFilterRegex"), option("ExcludeHeaderFilterRegex")
    if header_filter and exclude:
        return r"^(?=.*?(?:%s))(?!.*?(?:%s))" % (header_filter, exclude)
    return header_filter


def input_stamps(depfile, directory):
    """{path: [mtime_ns, size]} of the inputs named in a make dependency file
    (paths made absolute: clang writes those found through a relative -I relative
    to directory, where it ran)."""
    with open(depfile, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    deps = text.split(":", 1)[1].split() if ":" in text else []
    stamps = {}
    for d in deps:
        d = os.path.normpath(os.path.join(directory, d))
        st = os.stat(d)
        stamps[d] = [st.st_mtime_ns, st.st_size]
    return stamps


def pch_is_fresh(group):
    try:
        with open(group.path + ".inputs.json", encoding="utf-8") as f:
            recorded = json.load(f)
        for path, (mtime, size) in recorded.items():
            st = os.stat(path)
            if st.st_mtime_ns != mtime or st.st_size != size:
                return False
        return os.path.isfile(group.path)
    except (OSError, ValueError, TypeError):
        return False


def build_pch(group, clang):
    """Builds the group's PCH (or reuses one whose inputs did not change since);
    sets group.error when that fails."""
    t0 = time.time()
    try:
        if not pch_is_fresh(group):
            build_pch_file(group, clang)
        if group.guards and group.error is None:
            scan_guards(group, group.guards)
            used = [m for m in sorted(group.guards) if group.guards_used.get(m)]
            if used:
                group.error = "the include guard %s (%s) is named by LibTorch's %s" % (
                    used[0], group.guards[used[0]], os.path.relpath(group.guards_used[used[0]]))
    finally:
        group.seconds = time.time() - t0
        group.done.set()


def build_pch_file(group, clang):
    """Compiles the group's PCH and records its inputs; sets group.error when that fails."""
    try:
        header = group.path[:-4] + ".hpp"
        with open(header, "w") as f:
            f.write("".join("#include %s\n" % i for i in group.includes))
        tmp = group.path + ".tmp%d" % os.getpid()
        cmd = [clang] + group.flags + group.build_flags + [
            "-MD", "-MF", tmp + ".d", "-x", "c++-header", header, "-o", tmp]
        r = subprocess.run(cmd, cwd=group.directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace")
        if r.returncode != 0:
            first = next((l for l in r.stdout.splitlines() if "error" in l), r.stdout.strip()[:200])
            group.error = "building it failed: %s" % first
            return
        stamps = input_stamps(tmp + ".d", group.directory)
        os.replace(tmp, group.path)
        with open(group.path + ".inputs.json", "w", encoding="utf-8") as f:
            json.dump(stamps, f)
    except OSError as e:
        group.error = "building it failed: %s" % e
    finally:
        for leftover in (group.path + ".tmp%d" % os.getpid(), group.path + ".tmp%d.d" % os.getpid()):
            try:
                os.unlink(leftover)
            except OSError:
                pass
