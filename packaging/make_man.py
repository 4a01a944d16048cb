#!/usr/bin/env python3
"""Make a man page from a roff template and a program's --help.

    make_man.py TEMPLATE OUTPUT --version V --llvm-major N -- PROGRAM [ARGS...]

Reads TEMPLATE (docs/man/<name>.1.in), replaces @VERSION@ and @LLVM_MAJOR@, and
@HELP@ with what `PROGRAM ARGS...` prints (normally `<program> --help`), escaped
for roff's no-fill mode; writes OUTPUT, gzip-compressed when it ends in .gz the
way Debian compresses man pages (gzip -9n: maximum compression, no name or time
stamp, so the same input gives the same bytes). Standard library only.
"""
import gzip
import os
import re
import subprocess
import sys


def roff_verbatim(text):
    """TEXT as lines for .nf: backslashes and '-' escaped, no line read as a request."""
    lines = []
    for line in text.expandtabs(8).rstrip("\n").split("\n"):
        line = line.rstrip().replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def main(argv):
    if "--" not in argv:
        sys.stderr.write(__doc__)
        return 2
    cut = argv.index("--")
    opts, command = argv[1:cut], argv[cut + 1:]
    if len(opts) != 6 or opts[2] != "--version" or opts[4] != "--llvm-major" or not command:
        sys.stderr.write(__doc__)
        return 2
    template, output, version, llvm_major = opts[0], opts[1], opts[3], opts[5]
    env = dict(os.environ, COLUMNS="80", LC_ALL="C.UTF-8")
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    help_text = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0 or not help_text.strip():
        sys.stderr.write("make_man.py: error: '%s' failed (exit status %d):\n%s"
                         % (" ".join(command), proc.returncode, help_text))
        return 1
    with open(template, encoding="utf-8") as f:
        page = f.read()
    page = page.replace("@VERSION@", version).replace("@LLVM_MAJOR@", llvm_major)
    page = page.replace("@HELP@", roff_verbatim(help_text))
    left = re.findall(r"@[A-Z_]+@", page)
    if left:
        sys.stderr.write("make_man.py: error: %s: unknown placeholder %s\n" % (template, left[0]))
        return 1
    data = page.encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    if output.endswith(".gz"):
        with open(output, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
                gz.write(data)
    else:
        with open(output, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
