#!/usr/bin/env python3
"""Stage torch-tidy's documentation for installation (share/doc/torch-tidy).

    install_docs.py SOURCE_ROOT STAGING_DIR

The installed tree is the source's docs/ folder moved up one level, so that
run-torch-tidy finds the check pages at share/doc/torch-tidy/checks:

    README.md             -> README.md
    docs/<page>.md        -> <page>.md           (design.md, summaries.md, ...)
    docs/checks/*.md      -> checks/*.md
    docs/integration/*.md -> integration/*.md

plus every other file those pages link to (test/README.md, ...), at its source
path. Relative links are rewritten for the new places (README.md's
`docs/summaries.md` becomes `summaries.md`, integration/'s `../../README.md`
becomes `../README.md`); links inside code blocks and code spans are text and
stay as they are. A link whose target does not exist in the source is left
alone and reported on stderr (test/tools/install-docs-links.test fails on it).
STAGING_DIR is emptied first. Standard library only.
"""
import os
import re
import shutil
import sys

# Fenced code blocks (``` or ~~~, to the matching fence), code spans (a run of
# backticks to the same run), and inline links [text](target "title").
FENCE_RE = re.compile(r"^[ \t]*(```+|~~~+)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK_RE = re.compile(r"(\]\()(<[^>\n]*>|[^)\s]+)((?:\s+\"[^\"\n]*\")?\))")
URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def text_segments(text):
    """(is_code, piece) pairs covering TEXT: code blocks and spans are code."""
    pieces = []
    pos = 0
    for m in FENCE_RE.finditer(text):
        pieces.append((False, text[pos:m.start()]))
        pieces.append((True, m.group(0)))
        pos = m.end()
    pieces.append((False, text[pos:]))
    out = []
    for is_code, piece in pieces:
        if is_code:
            out.append((True, piece))
            continue
        pos = 0
        for m in SPAN_RE.finditer(piece):
            out.append((False, piece[pos:m.start()]))
            out.append((True, m.group(0)))
            pos = m.end()
        out.append((False, piece[pos:]))
    return out


def relative_targets(text):
    """The relative link targets of a markdown TEXT, outside code."""
    for is_code, piece in text_segments(text):
        if is_code:
            continue
        for m in LINK_RE.finditer(piece):
            target = m.group(2).strip("<>")
            if not URL_RE.match(target) and not target.startswith("#"):
                yield target


def split_target(target):
    path, sep, fragment = target.partition("#")
    return path, sep + fragment


def installed_name(rel):
    """Where a source file (relative to the source root) goes in the doc tree."""
    if rel.startswith("docs/"):
        return rel[len("docs/"):]
    return rel


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: install_docs.py SOURCE_ROOT STAGING_DIR\n")
        return 2
    src, out = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    roots = ["README.md"]
    for d, dirs, files in os.walk(os.path.join(src, "docs")):
        dirs.sort()
        roots += sorted(os.path.relpath(os.path.join(d, f), src) for f in files if f.endswith(".md"))

    # The pages and what they link to, transitively (only markdown is followed).
    files, todo, problems = {}, list(roots), []
    while todo:
        rel = todo.pop(0)
        if rel in files:
            continue
        files[rel] = installed_name(rel)
        if not rel.endswith(".md"):
            continue
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = f.read()
        for target in relative_targets(text):
            path, _ = split_target(target)
            if not path:
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path))
            full = os.path.join(src, dest)
            if dest.startswith("..") or not os.path.exists(full):
                problems.append("%s: link to '%s': no such file in the source tree" % (rel, target))
            elif os.path.isfile(full) and dest not in files:
                todo.append(dest)
    clash = {}
    for rel, inst in files.items():
        clash.setdefault(inst, []).append(rel)
    for inst, rels in clash.items():
        if len(rels) > 1:
            sys.stderr.write("install_docs.py: error: %s would all be installed as %s\n"
                             % (", ".join(rels), inst))
            return 1

    def rewrite(rel, text):
        def fix(m):
            target = m.group(2)
            bare = target.strip("<>")
            if URL_RE.match(bare) or bare.startswith("#"):
                return m.group(0)
            path, fragment = split_target(bare)
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path))
            if not path or not os.path.exists(os.path.join(src, dest)):
                return m.group(0)
            new = os.path.relpath(installed_name(dest), os.path.dirname(files[rel]) or ".")
            if path.endswith("/") and not new.endswith("/"):
                new += "/"
            new += fragment
            if target.startswith("<"):
                new = "<%s>" % new
            return m.group(1) + new + m.group(3)
        return "".join(piece if is_code else LINK_RE.sub(fix, piece)
                       for is_code, piece in text_segments(text))

    if os.path.isdir(out):
        shutil.rmtree(out)
    for rel, inst in sorted(files.items()):
        dst = os.path.join(out, inst)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if rel.endswith(".md"):
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                text = f.read()
            with open(dst, "w", encoding="utf-8") as f:
                f.write(rewrite(rel, text))
        else:
            shutil.copyfile(os.path.join(src, rel), dst)
    for p in problems:
        sys.stderr.write("install_docs.py: warning: %s\n" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
