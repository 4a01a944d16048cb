"""--diff REF: the lines git says changed since REF, and the files of the
database to analyse for them (changed, or including a changed header)."""

import os
import re
import subprocess
import sys

from .common import InputError, PROG
from .preamble import include_dirs, iquote_dirs

# --diff REF analyses the files of the database changed since REF (git diff REF: the
# working tree against REF, staged and unstaged) and the files that include a changed
# header, and reports only the findings on the lines added or changed since REF
# (git diff -U0), as clang-tidy-diff.py does.


GIT_INCLUDE_RE = re.compile(r'^\s*#\s*(?:include|include_next|import)\s*([<"])([^>"]+)[>"]')


def git_output(repo, *argv):
    try:
        return subprocess.run(["git", "-C", repo] + list(argv), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, errors="surrogateescape")
    except OSError as e:
        raise InputError("--diff: cannot run git: %s" % e.strerror)


def git_unquote(path):
    """A path as git prints it, C-quoted when it holds unusual characters."""
    if not path.startswith('"'):
        return path
    out, i, body = bytearray(), 0, path[1:-1] if path.endswith('"') else path[1:]
    escapes = {"n": b"\n", "t": b"\t", "r": b"\r", "a": b"\a", "b": b"\b", "f": b"\f",
               "v": b"\v", "\\": b"\\", '"': b'"'}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if body[i + 1:i + 4].isdigit() and len(body[i + 1:i + 4]) == 3:
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out += escapes.get(body[i + 1], body[i + 1].encode())
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def git_changed_lines(ref, where):
    """(work tree, {real path: set of line numbers}) of the lines the working tree
    added or changed since ref (git diff -U0 REF: staged and unstaged). Files with no
    such line (only deletions, a mode change) are left out."""
    r = git_output(where, "rev-parse", "--show-toplevel")
    if r.returncode != 0 or not r.stdout.strip():
        lines = [l.strip() for l in r.stderr.splitlines() if l.strip()]
        safe = next((l for l in lines if l.startswith("git config") and "safe.directory" in l), None)
        if safe:  # a checkout owned by another user (a CI container): git refuses it
            raise InputError("--diff: git refuses the repository of '%s' (%s); mark it safe: %s"
                             % (where, lines[0], safe))
        raise InputError("--diff: '%s' is not in a git work tree (%s)"
                         % (where, next((l for l in lines if l.startswith("fatal:")),
                                        lines[-1] if lines else "git rev-parse failed")))
    top = r.stdout.strip()
    r = git_output(top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}")
    if r.returncode != 0 or not r.stdout.strip():
        shallow = git_output(top, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        if re.fullmatch(r"[\w.][\w./-]*", ref) and not ref.startswith("HEAD"):
            # A branch, tag or commit id, e.g. origin/main in a CI checkout that
            # fetched only the commit under test.
            hint = "fetch it first: git fetch --no-tags%s origin %s" % (
                " --depth=1" if shallow else "",
                ref[len("origin/"):] if ref.startswith("origin/") else ref)
        else:  # HEAD~3, main@{1}, ...: history the clone may lack
            hint = "fetch more history first: git fetch --deepen=50" if shallow else \
                "not a commit of this repository"
        raise InputError("--diff: cannot resolve '%s' in %s (%s%s)"
                         % (ref, top, "a shallow clone? " if shallow else "", hint))
    r = git_output(top, "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff",
                   "--no-textconv", "--find-renames", "--ignore-submodules", "--src-prefix=a/",
                   "--dst-prefix=b/", r.stdout.strip(), "--")
    if r.returncode != 0:
        raise InputError("--diff: git diff %s failed: %s"
                         % (ref, (r.stderr.strip().splitlines() or ["status %d" % r.returncode])[-1]))
    changed, current, old_left, new_left = {}, None, 0, 0
    for line in r.stdout.split("\n"):
        if old_left or new_left:  # inside a hunk: its '-' and '+' lines, nothing else
            if line.startswith("-"):
                old_left -= 1
                continue
            if line.startswith("+"):
                new_left -= 1
                continue
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            old_left = new_left = 0
        if line.startswith("+++ "):
            name = git_unquote(line[4:].rstrip("\t"))
            current = None
            if name != "/dev/null" and name.startswith("b/"):
                current = os.path.realpath(os.path.join(top, name[2:]))
        elif line.startswith("@@ ") and current is not None:
            m = re.match(r"@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if m:
                old_left = int(m.group(1)) if m.group(1) is not None else 1
                start = int(m.group(2))
                new_left = int(m.group(3)) if m.group(3) is not None else 1
                if new_left:
                    changed.setdefault(current, set()).update(range(start, start + new_left))
    return top, changed


def includes_changed(entry, targets, top, memo):
    """Whether the file includes (transitively) one of the target files, by a
    textual scan of its #include lines (conditional ones too) resolved like the
    compiler's search path; only files inside the work tree top are followed.
    memo holds each file's includes and each resolution, across entries."""
    search = tuple(d for d, _ in include_dirs(entry, entry.args[1:]))
    quote = tuple(iquote_dirs(entry, entry.args[1:]))
    prefix = top.rstrip(os.sep) + os.sep
    files, resolved = memo.setdefault("files", {}), memo.setdefault("resolved", {})
    me = os.path.realpath(entry.file)
    seen, stack = set(), [me]
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        if path != me and path in targets:
            return True
        if path not in files:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    files[path] = [m.groups() for m in map(GIT_INCLUDE_RE.match, f) if m]
            except OSError:
                files[path] = []
        for kind, name in files[path]:
            here = (os.path.dirname(path),) + quote if kind == '"' else ()
            key = (name, here, search)
            if key not in resolved:
                resolved[key] = None
                for d in here + search:
                    candidate = os.path.join(d, name)
                    if os.path.isfile(candidate):
                        real = os.path.realpath(candidate)
                        resolved[key] = real if real.startswith(prefix) else None
                        break
            if resolved[key]:
                stack.append(resolved[key])
    return False


def diff_entries(args, entries):
    """--diff: the entries changed since the revision, and those including a changed
    file that is not in the database (a header). Sets args.diff_lines."""
    top, changed = git_changed_lines(args.diff, os.path.abspath(args.source_root or os.getcwd()))
    args.diff_lines = changed
    headers = set(changed) - {os.path.realpath(f) for f in getattr(args, "database_files", ())}
    selected, through_header, memo = [], 0, {}
    for e in entries:
        if os.path.realpath(e.file) in changed:
            selected.append(e)
        elif headers and includes_changed(e, headers, top, memo):
            selected.append(e)
            through_header += 1
    if args.verbose or (not selected and not args.quiet):
        sys.stderr.write("%s: --diff %s: %d file%s with changed lines, %d file%s of the database "
                         "to analyse%s\n" % (PROG, args.diff, len(changed),
                                             "" if len(changed) == 1 else "s", len(selected),
                                             "" if len(selected) == 1 else "s",
                                             " (%d through a changed header)" % through_header
                                             if through_header else ""))
    return selected
