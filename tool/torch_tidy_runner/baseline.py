"""--baseline: fingerprints of the findings, the baseline file that hides the
known ones, and what --baseline and --diff hid from a report."""

import hashlib
import json
import os
import sys

from .common import InputError, PROG, fail, unwritable, write_if_changed
from .fixes import parse_fix_block
from .reports import SourceLines, rel, source_root

# --baseline FILE hides the findings recorded in FILE (the first run, when FILE does
# not exist, records them; --update-baseline rewrites it). A finding is known by its
# fingerprint: a hash of the check, the file relative to the source root, the message
# and the flagged line's text with its whitespace collapsed, plus the occurrence of that
# key in the file (":1", ":2", ... in the order of the lines). No line number goes in,
# so code added above a finding keeps it hidden, while an edit of its line makes it new.
# SARIF's partialFingerprints (torchTidyFindingHash/v1) carry the same value.


BASELINE_VERSION = 1


def add_adoption_arguments(p):
    a = p.add_argument_group("adopting on existing code")
    a.add_argument("--baseline", metavar="FILE",
                   help="hide the findings recorded in FILE (JSON); when FILE does not exist, "
                        "record this run's findings in it and exit 0")
    a.add_argument("--update-baseline", action="store_true",
                   help="with --baseline: rewrite FILE with this run's findings")
    a.add_argument("--diff", metavar="REF",
                   help="analyse only the files changed since the git revision REF (the working "
                        "tree against REF, staged and unstaged) and report only the findings on "
                        "the changed lines")


def check_adoption_arguments(args):
    """Checks --baseline, --update-baseline and --diff and reads the baseline
    (args.baseline_entries: its findings, None when it is to be recorded)."""
    args.baseline_entries = None
    args.diff_lines = None
    if args.update_baseline and not args.baseline:
        fail("--update-baseline needs --baseline=FILE")
    if args.summaries_only and (args.baseline or args.diff is not None):
        fail("--summaries-only writes no report: drop %s"
             % " and ".join(o for o, v in (("--baseline", args.baseline),
                                           ("--diff", args.diff is not None)) if v))
    if args.diff is not None and (not args.diff or args.diff.startswith("-")):
        fail("--diff: '%s' is not a git revision" % args.diff)
    if not args.baseline:
        return
    exists = os.path.exists(args.baseline)
    if exists:
        if os.path.isdir(args.baseline):
            fail("--baseline: '%s' is a directory" % args.baseline)
        try:
            args.baseline_entries = read_baseline(args.baseline)
        except InputError as e:
            fail("--baseline: %s" % e)
    if args.update_baseline or not exists:
        if args.diff is not None:
            fail("--baseline: %s: --diff sees only the changed lines; %s the baseline in a run "
                 "without --diff" % ("--update-baseline" if exists else
                                     "'%s' does not exist" % args.baseline,
                                     "update" if exists else "record"))
        why = unwritable(args.baseline)
        if why:
            fail("--baseline: %s" % why)


def read_baseline(path):
    """The findings of a baseline file (a list of dicts with a 'fingerprint')."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InputError("cannot read '%s': %s" % (path, e.strerror))
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError("'%s' is not valid JSON: %s" % (path, e))
    if not (isinstance(data, dict) and data.get("version") == BASELINE_VERSION
            and isinstance(data.get("findings"), list)
            and all(isinstance(x, dict) and isinstance(x.get("fingerprint"), str)
                    for x in data["findings"])):
        raise InputError("'%s' is not a run-torch-tidy baseline (version %d: 'findings', "
                         "each with a 'fingerprint')" % (path, BASELINE_VERSION))
    return data["findings"]


def baseline_text(findings):
    """The baseline file: sorted, one object per finding, no line numbers (so that
    code moving does not rewrite it) and nothing that changes from run to run."""
    def order(x):
        occurrence = x["fingerprint"].rpartition(":")[2]
        return (str(x.get("file", "")), str(x.get("check", "")), str(x.get("message", "")),
                str(x.get("code", "")), int(occurrence) if occurrence.isdigit() else 0,
                x["fingerprint"])
    lines = ",\n".join("    " + json.dumps(x, ensure_ascii=False, sort_keys=False)
                       for x in sorted(findings, key=order))
    return ('{\n  "version": %d,\n  "tool": "run-torch-tidy",\n'
            '  "about": "findings hidden by run-torch-tidy --baseline; rewrite with '
            '--update-baseline",\n  "findings": [\n%s%s  ]\n}\n'
            % (BASELINE_VERSION, lines, "\n" if lines else ""))


def source_relative(path, root):
    """path relative to the source root, also through symbolic links; '' for none."""
    if not path:
        return ""
    r = rel(path, root)
    if os.path.isabs(r):
        real, real_root = os.path.realpath(path), os.path.realpath(root)
        r2 = rel(real, real_root)
        r = r2 if not os.path.isabs(r2) else r
    return r.replace(os.sep, "/")


def fingerprint_findings(diags, root):
    """Sets each diagnostic's 'fingerprint' (and '_baseline', the entry a baseline
    records for it). diags must be the whole report, in its order (file, line, column)."""
    src, seen = SourceLines(), {}
    for d in diags:
        rid = d["check"] or ("clang-diagnostic-%s" % d["level"])
        file = source_relative(d["file"], root)
        text = src.line(d["file"], d["line"]) if d["file"] else None
        text = " ".join((text or b"").decode("utf-8", "replace").split())
        key = "\0".join([rid, file, d["message"], text])
        seen[key] = seen.get(key, 0) + 1
        d["fingerprint"] = "%s:%d" % (hashlib.sha256(key.encode("utf-8", "surrogateescape"))
                                      .hexdigest()[:32], seen[key])
        d["_baseline"] = {"fingerprint": d["fingerprint"], "file": file, "check": rid,
                          "message": d["message"], "code": text}


class Adoption:
    """What --baseline and --diff did to a report: the counts for the summary line."""

    def __init__(self):
        self.hidden_baseline = 0
        self.outside_diff = 0
        self.stale = 0           # baseline entries no run finding matched (full runs only)
        self.hidden_keys = set()
        self.kept_keys = set()

    def summary(self):
        parts = []
        if self.hidden_baseline:
            parts.append("%d hidden by the baseline" % self.hidden_baseline)
        if self.outside_diff:
            parts.append("%d outside the changed lines" % self.outside_diff)
        if self.stale:
            parts.append("%d baseline entr%s no longer found (--update-baseline drops %s)"
                         % (self.stale, "y" if self.stale == 1 else "ies",
                            "it" if self.stale == 1 else "them"))
        return "".join(", " + p for p in parts)

    def kept_fix_blocks(self, blocks):
        """The exported diagnostics (YAML blocks) of the findings still reported:
        --fix and --export-fixes leave hidden findings alone."""
        if not self.hidden_keys:
            return blocks
        src, out = SourceLines(), []
        for b in blocks:
            check, message, file, offset, _ = parse_fix_block(b)
            if file:
                line, col = src.position(file, offset)
                key = (check, os.path.normpath(file), line, col, message)
                if key in self.hidden_keys and key not in self.kept_keys:
                    continue
            out.append(b)
        return out


def diag_key(d):
    return (d["check"], d["file"], d["line"], d["column"], d["message"])


def adopt_findings(args, diags, results):
    """Fingerprints every finding, records or updates the baseline, and drops the
    findings outside --diff's changed lines and those in the baseline.
    Returns (the findings to report, Adoption)."""
    info = Adoption()
    root = source_root(args.source_root)
    fingerprint_findings(diags, root)
    everything = {d["fingerprint"] for d in diags}
    changed = getattr(args, "diff_lines", None)
    if changed is not None:
        real, kept = {}, []
        for d in diags:
            if d["file"] and d["line"]:
                f = real.setdefault(d["file"], os.path.realpath(d["file"]))
                if d["line"] not in changed.get(f, ()):
                    info.outside_diff += 1
                    info.hidden_keys.add(diag_key(d))
                    continue
            kept.append(d)
        diags = kept
    if not getattr(args, "baseline", None):
        info.kept_keys = {diag_key(d) for d in diags}
        return diags, info
    entries = args.baseline_entries
    if entries is None or args.update_baseline:
        failed = [r for r in results if r.status in ("crashed", "failed") or r.unknown_flags]
        if failed:
            sys.stderr.write("%s: error: --baseline: '%s' not %s: torch-tidy could not analyse "
                             "%s\n" % (PROG, args.baseline,
                                       "recorded" if entries is None else "updated",
                                       os.path.relpath(failed[0].entry.file)))
        else:
            entries = record_baseline(args, diags, results, root, entries)
    known = {x["fingerprint"] for x in entries or ()}
    kept = []
    for d in diags:
        if d["fingerprint"] in known:
            info.hidden_baseline += 1
            info.hidden_keys.add(diag_key(d))
        else:
            kept.append(d)
    info.kept_keys = {diag_key(d) for d in kept}
    if entries and set(r.entry.file for r in results) >= getattr(args, "database_files", {None}):
        info.stale = sum(x["fingerprint"] not in everything for x in entries)
    return kept, info


def record_baseline(args, diags, results, root, old):
    """Writes the baseline (a new one, or --update-baseline) and says so on stderr.
    A run over some of the database's files keeps the old entries of the files it
    did not analyse. Returns the entries now in the file."""
    findings = {d["fingerprint"]: d["_baseline"] for d in diags}
    full = set(r.entry.file for r in results) >= getattr(args, "database_files", set())
    if old and not full:
        analysed = {source_relative(r.entry.file, root) for r in results}
        for x in old:
            if x.get("file") not in analysed:
                findings.setdefault(x["fingerprint"], x)
    new = list(findings.values())
    _, error = write_if_changed(os.path.abspath(args.baseline), baseline_text(new))
    if error:
        raise InputError("--baseline: %s" % error)
    n = len(new)
    line = "%s: recorded %d finding%s in %s" % (PROG, n, "" if n == 1 else "s", args.baseline)
    if old is not None:
        before = {x["fingerprint"] for x in old}
        after = set(findings)
        line += " (%d new, %d no longer found)" % (len(after - before), len(before - after))
    sys.stderr.write(line + "\n")
    return new
