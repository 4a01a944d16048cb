#!/usr/bin/env python3
"""Check the relative links of an installed documentation tree.

    md_links.py DOC_DIR

Walks every .md file under DOC_DIR and resolves each relative inline link
([text](target), outside code blocks and code spans): the target must be a file
or directory inside DOC_DIR, and a '#fragment' must name a heading of the
target page (GitHub's anchors: lower case, punctuation dropped, spaces as '-',
'-1', '-2' for repeats). Prints one line per broken link and exits 1 if there
is any, else prints how many links resolved and exits 0.
"""
import os
import re
import sys

FENCE_RE = re.compile(r"^[ \t]*(```+|~~~+)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK_RE = re.compile(r"\]\((<[^>\n]*>|[^)\s]+)(?:\s+\"[^\"\n]*\")?\)")
URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
HEADING_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)


def without_code(text):
    text = FENCE_RE.sub("", text)
    return SPAN_RE.sub(lambda m: " " * len(m.group(0)), text)


def anchors(text):
    """GitHub's heading anchors of a markdown page."""
    seen, out = {}, set()
    for m in HEADING_RE.finditer(FENCE_RE.sub("", text)):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))   # links: their text
        title = title.replace("`", "").replace("*", "")
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out


def main(argv):
    root = os.path.realpath(argv[1])
    broken, good = [], 0
    cache = {}
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            page = os.path.join(d, name)
            with open(page, encoding="utf-8") as f:
                text = f.read()
            rel = os.path.relpath(page, root)
            for m in LINK_RE.finditer(without_code(text)):
                target = m.group(1).strip("<>")
                if URL_RE.match(target):
                    continue
                path, _, fragment = target.partition("#")
                dest = os.path.realpath(os.path.join(d, path)) if path else page
                if dest != root and not dest.startswith(root + os.sep):
                    broken.append("%s: '%s' points outside %s" % (rel, target, root))
                    continue
                if not os.path.exists(dest):
                    broken.append("%s: '%s': no such file" % (rel, target))
                    continue
                if fragment and dest.endswith(".md") and os.path.isfile(dest):
                    if dest not in cache:
                        with open(dest, encoding="utf-8") as f:
                            cache[dest] = anchors(f.read())
                    if fragment not in cache[dest]:
                        broken.append("%s: '%s': no heading with the anchor '#%s' in %s"
                                      % (rel, target, fragment, os.path.relpath(dest, root)))
                        continue
                good += 1
    for b in broken:
        print("broken link: " + b)
    if broken:
        return 1
    print("%d relative links resolve" % good)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
