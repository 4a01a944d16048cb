"""A file's preamble as the preprocessor reads it: which LibTorch headers it
includes before any code of its own (what a shared precompiled header may hold),
the include search path of a compile command, and the compile flags a PCH is
built with."""

import os
import re


INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
DIRECTIVE_RE = re.compile(r"^\s*#\s*(\w+)")
OUTPUT_FLAGS_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
OUTPUT_FLAGS = {"-c", "-MD", "-MMD", "-MP", "-M", "-MM", "-S", "-E"}
NO_PCH_FLAGS = ("-include", "-include-pch", "-imacros", "-fmodules", "-Xclang", "-emit-",
                "--include", "-fpch-", "-cc1", "--precompile", "/Yu", "/Yc", "/FI")
CXX_EXTENSIONS = (".cpp", ".cc", ".cxx", ".c++", ".cp", ".C")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


GUARD_IFNDEF_RE = re.compile(r"^#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*(?:\(\s*(\w+)\s*\)|\s+(\w+)))\s*$")
GUARD_DEFINE_RE = re.compile(r"^#\s*define\s+(\w+)\s*$")
IF_OPEN_RE = re.compile(r"^#\s*if(?:n?def)?\b")
IF_ELSE_RE = re.compile(r"^#\s*(?:else|elif|elifdef|elifndef)\b")
ENDIF_RE = re.compile(r"^#\s*endif\b")
PRAGMA_ONCE_RE = re.compile(r"^#\s*pragma\s+once\s*$")
MAX_INCLUDE_DEPTH = 40


class SourceText:
    """A file as the preamble walk reads it: its lines without comments, whether
    it has `#pragma once`, and its include guard: the macro of an `#ifndef X` /
    `#define X` pair that opens the file and whose `#endif` closes it (with the
    indices of those three lines)."""

    def __init__(self, path):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.lines = strip_comments(text.lstrip("\ufeff")).split("\n")
        self.once = any(PRAGMA_ONCE_RE.match(l.strip()) for l in self.lines)
        self.guard, self.guard_lines = None, frozenset()
        sig = [(i, l.strip()) for i, l in enumerate(self.lines) if l.strip()]
        m = GUARD_IFNDEF_RE.match(sig[0][1]) if len(sig) >= 3 else None
        d = GUARD_DEFINE_RE.match(sig[1][1]) if m else None
        macro = m and (m.group(1) or m.group(2) or m.group(3))
        if not (macro and d and d.group(1) == macro and ENDIF_RE.match(sig[-1][1])):
            return
        depth = 0
        for n, (_, s) in enumerate(sig):
            if IF_OPEN_RE.match(s):
                depth += 1
            elif ENDIF_RE.match(s):
                depth -= 1
            elif depth == 1 and IF_ELSE_RE.match(s):
                return  # an #else of the guard: not an include guard
            if depth <= 0 and n != len(sig) - 1:
                return  # the #ifndef closes before the end of the file
        if depth == 0:
            self.guard = macro
            self.guard_lines = frozenset((sig[0][0], sig[1][0], sig[-1][0]))


def iquote_dirs(entry, flags):
    """-iquote directories (searched for "" includes after the including file's own)."""
    dirs = []
    for i, a in enumerate(flags):
        if a == "-iquote" and i + 1 < len(flags):
            dirs.append(flags[i + 1])
        elif a.startswith("-iquote") and len(a) > len("-iquote"):
            dirs.append(a[len("-iquote"):])
    return [os.path.normpath(os.path.join(entry.directory, d)) for d in dirs]


def where_text(where):
    """'include/model.h:3, included from src/train.cpp:1' of an includer chain."""
    return ", included from ".join("%s:%d" % (os.path.relpath(p), n) for p, n in reversed(where))


def preamble_events(entry, flags, include_rx, texts):
    """The file's preamble as the preprocessor reads it, following the project's own
    headers (found next to the including file, through -iquote or -I, not in system
    directories) where they are included. Yields (kind, what, where) in that order:
    ("torch", "<name>", where) for a LibTorch include, ("guard", macro, where) when a
    header with an include guard is entered, ("stop", message, where) for a line that
    could configure LibTorch or is code ("shadow" when it is a LibTorch include that
    a project file shadows). Comments, blank lines, `#pragma once`, include guards and
    standard library headers (<name> without an extension) yield nothing; a header
    walked before with `#pragma once` or a guard is skipped. where: the includer
    chain [(path, 1-based line), ...] from the main file to the line."""
    search = include_dirs(entry, flags)
    quote = iquote_dirs(entry, flags)
    walked = set()

    def text(path):
        if path not in texts:
            try:
                texts[path] = SourceText(path)
            except OSError as e:
                texts[path] = e
        return texts[path]

    def walk(path, chain):
        t = text(path)
        if isinstance(t, OSError):
            yield ("error" if not chain else "stop", "cannot read %s: %s" % (
                os.path.relpath(path) if chain else "the file", t.strerror), chain)
            return
        if t.once or t.guard:
            walked.add(path)
        if chain and t.guard:
            yield ("guard", t.guard, chain + [(path, min(t.guard_lines) + 1)])
        for i, line in enumerate(t.lines):
            s = line.strip()
            if not s or PRAGMA_ONCE_RE.match(s) or (chain and i in t.guard_lines):
                continue
            where = chain + [(path, i + 1)]
            m = INCLUDE_RE.match(s)
            if not m:
                yield ("stop", "'%s' comes before its LibTorch includes" % s[:60], where)
                continue
            kind, name = m.groups()
            local = [os.path.dirname(path)] + quote if kind == '"' else []
            if include_rx.search(name):
                # A "torch/..." of the project's own would not be the PCH's header.
                shadow = next((d for d in local if os.path.isfile(os.path.join(d, name))), None)
                if shadow is None:
                    yield ("torch", "<%s>" % name, where)
                elif shadow == os.path.dirname(path) and not chain:
                    yield ("shadow", '"%s" is found next to the file' % name, where)
                else:
                    yield ("shadow", '"%s" is found in %s' % (name, os.path.relpath(shadow)), where)
                continue
            found = None
            for d, project in [(d, True) for d in local] + [(d, not s_) for d, s_ in search]:
                candidate = os.path.join(d, name)
                if os.path.isfile(candidate):
                    found = (os.path.normpath(candidate), project)
                    break
            if kind == "<" and "." not in name and not (found and found[1]):
                continue  # a standard library header (not a project's <config>)
            if found is None or not found[1]:
                # Not found, or a third-party header: it could configure LibTorch.
                yield ("stop", "'%s' comes before its LibTorch includes" % s[:60], where)
            elif found[0] in walked:
                continue  # included again: empty
            elif len(where) > MAX_INCLUDE_DEPTH:
                yield ("stop", "'%s' is nested too deeply" % s[:60], where)
            else:
                yield from walk(found[0], where)
    return walk(entry.file, [])


def preamble_torch_includes(entry, flags, include_rx, texts=None):
    """The LibTorch includes of the file's preamble if a PCH of them cannot change
    its meaning: those that come, in preprocessing order, before anything that is
    not a comment, a blank line, `#pragma once`, a project header's include guard, a
    standard library header or a project header made only of these (followed where
    it is included). The rest of the translation unit is parsed after them with or
    without the PCH; only what comes before them could configure LibTorch.

    Returns (includes, reason, guards, through): includes is a tuple of '<name>'
    strings, empty when the preamble has none; reason says why not otherwise (the
    line, where it is and the LibTorch include after it); guards {macro: where} the
    include guards defined before a LibTorch include (build_pch checks that
    LibTorch's headers never name them); through: the project headers that the
    LibTorch includes come through."""
    flags = flags if flags is not None else []
    events = preamble_events(entry, flags, include_rx, {} if texts is None else texts)
    found, guards, pending, through = [], {}, {}, []
    for kind, what, where in events:
        if kind == "guard":
            pending[what] = where_text(where)
        elif kind == "torch":
            guards.update(pending)
            pending = {}
            if what in found:
                continue
            found.append(what)
            if len(where) > 1 and where[-1][0] not in through:
                through.append(where[-1][0])
        elif found:
            break  # the rest is parsed after the PCH as without it
        elif kind == "error":
            return None, what, {}, []
        elif kind == "shadow":
            return None, "%s (%s)" % (what, where_text(where)), {}, []
        else:
            later = next((e for e in events if e[0] in ("torch", "shadow")), None)
            if later is None:
                return (), None, {}, []
            return None, "%s (%s; %s follows at %s)" % (
                what, where_text(where), later[1] if later[0] == "torch" else "a LibTorch include",
                where_text(later[2][-1:])), {}, []
    return tuple(found), None, guards, through


def torch_includes(entry, include_rx, flags=None):
    """(includes, reason) of preamble_torch_includes."""
    return preamble_torch_includes(entry, flags, include_rx)[:2]


def without_output_flags(args):
    """(index, argument) of the compile arguments that say what is compiled, not where
    its output goes: without -o FILE, -c, -MD, -MF FILE and the other output and
    dependency-file options (the PCH's flags and the cache's preprocessor run)."""
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in OUTPUT_FLAGS_WITH_VALUE:
            skip = True
            continue
        if a in OUTPUT_FLAGS or (a.startswith("-o") and len(a) > 2) or a.startswith(("-MF", "-MT", "-MQ")):
            continue
        yield i, a


def pch_flags(entry):
    """The compile flags without the compiler, the file and output options, or
    (None, reason) when a PCH cannot be used with them."""
    if entry.count > 1:
        return None, "several compile commands for the file"
    if not entry.file.endswith(CXX_EXTENSIONS):
        return None, "not a C++ source"
    args = entry.args[1:]
    out, seen_file = [], False
    for i, a in without_output_flags(args):
        if a.startswith(NO_PCH_FLAGS):
            return None, "the flags contain %s" % a
        if a == "-x" and i + 1 < len(args) and not args[i + 1].startswith("c++"):
            return None, "-x %s" % args[i + 1]
        if not a.startswith("-") and os.path.normpath(os.path.join(entry.directory, a)) == entry.file:
            seen_file = True
            continue
        out.append(a)
    if not seen_file:
        return None, "the file is not among its own compile arguments"
    return out, None


def include_dirs(entry, flags):
    """(dir, is_system) in search order for angle-bracket includes."""
    user, system, after = [], [], []
    it = iter(range(len(flags)))
    for i in it:
        a = flags[i]
        for opt, bucket in (("-I", user), ("-isystem", system), ("-idirafter", after),
                            ("--include-directory=", user)):
            if a == opt and i + 1 < len(flags):
                bucket.append(flags[i + 1])
                next(it, None)
                break
            if a.startswith(opt) and len(a) > len(opt) and not (opt == "-I" and a.startswith("-isystem")):
                bucket.append(a[len(opt):])
                break
    norm = lambda d: os.path.normpath(os.path.join(entry.directory, d))
    system_set = {norm(d) for d in system}
    dirs = [(norm(d), norm(d) in system_set) for d in user]
    dirs += [(norm(d), True) for d in system]
    dirs += [(d, True) for d in ("/usr/local/include", "/usr/include")]
    dirs += [(norm(d), True) for d in after]
    return dirs


def non_system_torch_headers(entry, flags, includes):
    """Paths of the PCH headers found through -I (not system headers)."""
    found = []
    for name in includes:
        for d, is_system in include_dirs(entry, flags):
            path = os.path.join(d, name[1:-1])
            if os.path.isfile(path):
                if not is_system:
                    found.append(path)
                break
    return found
