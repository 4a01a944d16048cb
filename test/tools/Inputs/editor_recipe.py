#!/usr/bin/env python3
"""usage: editor_recipe.py DOC MARKER LANG BINARY

Prints the first ```LANG code block of DOC (markdown) after the first line that
contains MARKER, with the documentation's placeholder path of torch-clangd
replaced by BINARY, so that a test runs the recipe exactly as documented.
Exits 1 when there is no such block."""
import sys

PLACEHOLDER = "/path/to/torch-tidy/build/bin/torch-clangd"


def main(doc, marker, lang, binary):
    lines = open(doc, encoding="utf-8").read().splitlines()
    start = next((i for i, l in enumerate(lines) if marker in l), None)
    if start is None:
        sys.exit("editor_recipe.py: no line with %r in %s" % (marker, doc))
    block, inside = [], False
    for line in lines[start + 1:]:
        if not inside and line.strip() == "```" + lang:
            inside = True
        elif inside and line.strip() == "```":
            break
        elif inside:
            block.append(line)
    if not block:
        sys.exit("editor_recipe.py: no ```%s block after %r in %s" % (lang, marker, doc))
    text = "\n".join(block) + "\n"
    if PLACEHOLDER not in text:
        sys.exit("editor_recipe.py: the block does not name %s" % PLACEHOLDER)
    sys.stdout.write(text.replace(PLACEHOLDER, binary))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
