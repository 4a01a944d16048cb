"""Fix-its: the exported YAML of each file (clang-tidy --export-fixes), merged
once per diagnostic, applied with clang-apply-replacements (or torch-tidy --fix
file by file), and read back (parse_fix_block) for SARIF fixes and --baseline."""

import os
import re
import shutil
import subprocess

from .tidy import tidy_options


def yaml_blocks(path):
    """The `  - DiagnosticName:` blocks of a clang-tidy --export-fixes file."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return []
    blocks, current, inside = [], None, False
    for line in lines:
        if line.startswith("Diagnostics:"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("  - "):
            current = [line]
            blocks.append(current)
        elif line.startswith("    ") and current is not None:
            current.append(line)
        else:
            current = None
            if line.startswith("..."):
                break
    return ["\n".join(b) for b in blocks]


def has_replacements(block):
    return re.search(r"^\s+Replacements:\s*\n\s+- FilePath:", block, re.M) is not None


def merged_fixes(results):
    seen, out = set(), []
    for r in results:
        if r.fixes:
            for b in yaml_blocks(r.fixes):
                if b not in seen:
                    seen.add(b)
                    out.append(b)
    return out


def write_fixes_yaml(path, blocks):
    with open(path, "w", encoding="utf-8") as f:
        f.write("---\nMainSourceFile:  ''\nDiagnostics:")
        f.write("\n" + "\n".join(blocks) + "\n" if blocks else "     []\n")
        f.write("...\n")


def apply_fixes(args, tidy, results, blocks, tmpdir, major):
    """Applies every fix-it once. Returns a list of error lines."""
    fixable = [b for b in blocks if has_replacements(b)]
    if not fixable:
        return []
    car = None
    for c in ("/usr/lib/llvm-%s/bin/clang-apply-replacements" % major,
              "clang-apply-replacements-%s" % major):
        path = c if os.sep in c else shutil.which(c)
        if path and os.access(path, os.X_OK):
            car = path
            break
    if car and not os.environ.get("RUN_TORCH_TIDY_NO_APPLY_REPLACEMENTS"):
        d = os.path.join(tmpdir, "apply")
        os.makedirs(d, exist_ok=True)
        write_fixes_yaml(os.path.join(d, "fixes.yaml"), fixable)
        r = subprocess.run([car, d], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode != 0:
            return ["clang-apply-replacements failed: %s" % " ".join(r.stdout.split())[:300]]
        return []
    # No clang-apply-replacements: let torch-tidy fix the files one at a time,
    # so that two runs never write the same header concurrently.
    errors = []
    for r in results:
        # (fixable: the fix-its of the reported findings; --baseline and --diff hide some)
        if r.fixes and any(has_replacements(b) and b in fixable for b in yaml_blocks(r.fixes)):
            cmd = [tidy, "-p", args.db_dir, "--use-color=false", "--fix", "--quiet"] + tidy_options(args)
            if getattr(args, "summaries_table", None):  # the summaries the report was made with
                cmd.append("--summaries=%s" % args.summaries_table)
            p = subprocess.run(cmd + [r.entry.file], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               universal_newlines=True)
            if p.returncode < 0:
                errors.append("torch-tidy --fix crashed on %s" % r.entry.file)
    return errors


def yaml_scalar(raw):
    """A scalar as clang-tidy's YAML writer quotes it."""
    raw = raw.strip()
    if raw.startswith("'") and raw.endswith("'") and len(raw) >= 2:
        return raw[1:-1].replace("''", "'")
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0", " ": " ",
                   "/": "/", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v"}

        def unescape(m):
            e = m.group(1)
            if e[0] in "xuU":
                return chr(int(e[1:], 16))
            return escapes.get(e, e)
        return re.sub(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", unescape, raw[1:-1])
    return raw


def parse_fix_block(block):
    """(check, message, file, offset, [replacements]) of one exported diagnostic;
    each replacement is (file, offset, length, text), paths absolute. Only the
    diagnostic's own replacements, not its notes'."""
    check = message = file = None
    offset, build_dir = 0, ""
    reps, current, section = [], None, None
    for line in block.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- "):
            body = body[2:]
            indent += 2
        key, _, value = body.partition(":")
        key = key.strip()
        if indent == 4:
            section = key
            if key == "DiagnosticName":
                check = yaml_scalar(value)
            elif key == "BuildDirectory":
                build_dir = yaml_scalar(value)
            current = None
            continue
        if section != "DiagnosticMessage":
            continue
        if indent == 6:
            if key == "Message":
                message = yaml_scalar(value)
            elif key == "FilePath":
                file = yaml_scalar(value)
            elif key == "FileOffset":
                offset = int(value.strip() or 0)
            current = None
        elif indent == 10 and line.strip().startswith("- ") and key == "FilePath":
            current = [yaml_scalar(value), 0, 0, ""]
            reps.append(current)
        elif indent == 10 and current is not None:
            if key == "Offset":
                current[1] = int(value.strip())
            elif key == "Length":
                current[2] = int(value.strip())
            elif key == "ReplacementText":
                current[3] = yaml_scalar(value)
    # Paths are relative to the compile command's directory.
    norm = lambda f: os.path.normpath(os.path.join(build_dir, f)) if f else f
    return check, message, norm(file), offset, [(norm(r[0]),) + tuple(r[1:]) for r in reps]


def fix_title(check, edits):
    """A short title for a fix-it: edits are (old text, new text) in source order.
    torch-clangd titles its code actions with the same rules (tool/clangd)."""
    def q(t):
        t = " ".join(t.split())
        return "'%s'" % (t if len(t) <= 60 else t[:57] + "...")
    if check == "torch-eval-loop-without-no-grad" and len(edits) == 1 \
            and not edits[0][0] and edits[0][1].lstrip().startswith("torch::NoGradGuard"):
        return "add %s before the loop" % q(edits[0][1])
    if len(edits) == 2 and not edits[0][0] and not edits[1][0] and edits[0][1] == "(":
        # Parenthesise and append: (x).detach(), (a + b) + eps, ... : name what is added.
        tail = edits[1][1]
        tail = tail[1:] if tail.startswith(")") else tail[:-1] if tail.endswith(")") else tail
        return "insert %s" % q(tail.strip())
    changed = [(o, n) for o, n in edits if n]
    if len(edits) > 1 and len(changed) == 1 and changed[0][0]:
        return "change to %s" % q(changed[0][1])
    if len(edits) == 1:
        old, new = edits[0]
        if old and new:
            return "change %s to %s" % (q(old), q(new))
        if old:
            return "remove %s" % q(old)
        return "insert %s" % q(new)
    return "apply %d edits" % len(edits)
