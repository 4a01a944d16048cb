"""Running torch-tidy on one file and reading its output: the options passed on,
the diagnostics parsed from its text (notes and snippets attached), unknown
compiler flags, a rejected PCH (run again without), crashes and failures."""

import os
import re
import signal
import subprocess
import time

from .common import InputError


DIAG_RE = re.compile(r"^(?:(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): )?"
                     r"(?P<level>(?i:warning|error|note|remark|fatal error)): (?P<msg>.*?)"
                     r"(?: \[(?P<check>[^\]\s]+)\])?$")
# clang's driver: "unknown argument: '-fx'", "unknown argument '-fx'; did you
# mean '-fy'?", "unsupported option '-mx' for target '...'".
UNKNOWN_FLAG_RE = re.compile(r"^unknown argument(?:: '(.*)'$| '(.*?)'; did you mean )"
                             r"|^unsupported option '(.*?)'")
# torch-tidy's note when the configuration of a file enables no torch-* check.
NO_TORCH_NOTE_RE = re.compile(r"^torch-tidy: note: no torch-\* check is enabled for '.*?'.*? "
                              r"\(Checks '(.*)' from (.*)\); add", re.M)
PCH_ERROR_RE = re.compile(r"precompiled header|PCH file|AST file|\.pch\b", re.I)


def tidy_options(args):
    opts = []
    for name in ("checks", "config", "config_file", "header_filter", "warnings_as_errors"):
        value = getattr(args, name)
        if value is not None:
            opts.append("--%s=%s" % (name.replace("_", "-"), value))
    opts += ["--extra-arg=%s" % a for a in args.extra_arg]
    opts += ["--extra-arg-before=%s" % a for a in args.extra_arg_before]
    return opts + args.tidy_arg


class Result:
    def __init__(self, entry):
        self.entry = entry
        self.diagnostics = []   # dicts; notes inside
        self.status = "ok"      # ok | compile-error | crashed | failed
        self.message = ""
        self.unknown_flags = []
        self.pch = False
        self.pch_note = ""
        self.seconds = 0.0
        self.fixes = None       # path of the exported YAML
        self.cached = False     # replayed from the result cache
        self.export = None      # summaries mode: what the file exported (functions, calls, reads)
        self.round = 0          # summaries mode: the round of this result
        self.no_torch = None    # (checks, origin) when no torch-* check is enabled


def parse_output(text, directory):
    diags, current = [], None
    for raw in text.splitlines():
        m = DIAG_RE.match(raw)
        if not m or (m.group("file") is None and m.group("level") == "note"):
            if current is not None:
                (current["notes"][-1] if current["notes"] else current)["snippet"].append(raw)
            continue
        file = m.group("file")
        if file is not None:
            file = os.path.normpath(os.path.join(directory, file))
        check = (m.group("check") or "").split(",")[0]
        d = {"file": file, "line": int(m.group("line") or 0), "column": int(m.group("col") or 0),
             "level": {"fatal error": "error"}.get(m.group("level").lower(), m.group("level").lower()),
             "message": m.group("msg"), "check": check, "snippet": []}
        if d["level"] == "note" and current is not None:
            current["notes"].append(d)
            continue
        d["notes"] = []
        diags.append(d)
        current = d
    return diags


def run_file(args, tidy, entry, group, tmpdir, index, extra=()):
    """Runs torch-tidy on one file; extra: more torch-tidy options (the summaries)."""
    res = Result(entry)
    t0 = time.time()
    cmd = [tidy, "-p", args.db_dir, "--use-color=false"] + tidy_options(args) + list(extra)
    # The cache stores the fix-its too; SARIF reports them as fixes.
    if args.fix or args.export_fixes or args.cache or args.format == "sarif":
        res.fixes = os.path.join(tmpdir, "fixes-%05d.yaml" % index)
        cmd.append("--export-fixes=%s" % res.fixes)
    pch_cmd = None
    if group is not None:
        group.done.wait()
        if group.error:
            res.pch_note = "PCH not used: %s" % group.error
        else:
            pch_cmd = cmd + ["--extra-arg=-include-pch", "--extra-arg=%s" % group.path]
    attempts = ([pch_cmd] if pch_cmd else []) + [cmd]
    for n, c in enumerate(attempts):
        try:
            proc = subprocess.run(c + [entry.file], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, errors="replace")
        except OSError as e:
            res.status, res.message = "failed", "cannot run %s: %s" % (tidy, e.strerror)
            break
        diags = parse_output(proc.stdout, entry.directory)
        res.unknown_flags = []
        for d in diags:
            m = UNKNOWN_FLAG_RE.match(d["message"]) if d["level"] == "error" and not d["file"] else None
            if m:
                res.unknown_flags.append(next(g for g in m.groups() if g is not None))
        diags = [d for d in diags if not (d["level"] == "error" and not d["file"]
                                          and UNKNOWN_FLAG_RE.match(d["message"]))]
        if c is pch_cmd and (proc.returncode != 0 and any(
                d["level"] == "error" and PCH_ERROR_RE.search(d["message"]) for d in diags)):
            # The PCH was rejected (e.g. a header changed since it was built): run without.
            res.pch_note = "PCH rejected: %s" % next(
                d["message"] for d in diags if d["level"] == "error" and PCH_ERROR_RE.search(d["message"]))
            continue
        res.pch = c is pch_cmd
        m = NO_TORCH_NOTE_RE.search(proc.stderr)
        if m:
            res.no_torch = (m.group(1), m.group(2))
        crashed = proc.returncode < 0 or "Stack dump:" in proc.stderr or "PLEASE submit a bug report" in proc.stderr
        if crashed:
            res.status = "crashed"
            sig = -proc.returncode if proc.returncode < 0 else None
            res.message = "torch-tidy crashed%s" % (
                " (%s)" % signal.Signals(sig).name if sig and sig in signal.Signals._value2member_map_ else "")
            res.stderr = proc.stderr
        elif proc.returncode != 0 and not any(d["level"] == "error" for d in diags) \
                and not res.unknown_flags:
            res.status = "failed"
            lines = [l for l in proc.stderr.splitlines() if l.strip()]
            res.message = "torch-tidy exited with status %d%s" % (
                proc.returncode, ": " + lines[-1] if lines else "")
        elif any(d["level"] == "error" for d in diags):
            res.status = "compile-error"
        res.diagnostics = diags
        break
    res.seconds = time.time() - t0
    return res


def check_tidy_options(args, tidy, entry):
    """Lets torch-tidy validate the options once (checks, configuration)
    instead of failing the same way on every file."""
    cmd = [tidy, "-p", args.db_dir, "--list-checks"] + tidy_options(args) + [entry.file]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace", timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise InputError("cannot run %s: %s" % (tidy, e))
    if r.returncode != 0:
        lines = [l.strip() for l in r.stdout.splitlines() if l.strip()]
        why = next((l for l in lines if re.search(r"(^|: )(error|Error)\b", l)),
                   lines[-1] if lines else "status %d" % r.returncode)
        raise InputError("torch-tidy rejects the options: %s" % why)
