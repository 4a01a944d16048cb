"""Sharded runs (docs/integration/ci.md): the options, the summaries file each
shard's --summaries-only run writes, and --merge-summaries's setup.

With summaries across files a sharded run has three steps. Each shard collects
the summaries of its own files in rounds (--summaries-only --shard K/N: each
file's export and the digest of the functions entries its last analysis read),
starting from an empty table, as a run from scratch does. --merge-summaries
merges them and goes on with the rounds of the whole project where they
stopped: a file that reads functions entries of other shards is analysed again
(the others' exports are taken from their shard), until the table settles (a
file's export depends on the functions entries it reads; the calls entries only
change its diagnostics). Facts only turn on and every shard
starts below the project's fixpoint, so the rounds end at the fixpoint an
unsharded run reaches. Each shard then analyses its files once with that table
(--summaries-from): each file reads what its last analysis in an unsharded run
read, so the diagnostics are the same."""

import json
import os

from .common import InputError, fail
from .database import parse_shard
from .summary_file import (SummaryError, checked_summaries, facts_view, merge_summaries,
                           read_summary_file, view_digest)

SHARD_FORMAT = "torch-tidy-summaries-shard"
SHARD_VERSION = 1


def add_shard_arguments(p):
    h = p.add_argument_group("shards of a CI job matrix (docs/integration/ci.md)")
    h.add_argument("--shard", metavar="K/N",
                   help="analyse only the K-th of N shards of the files (a file's shard is a hash "
                        "of its path: the N shards cover every file once, whatever the order of "
                        "the database); with summaries across files, see --summaries-from")
    h.add_argument("--summaries-out", metavar="FILE",
                   help="--summaries-only --shard: write the shard's summaries to FILE (default: "
                        "torch-tidy-summaries.shard-K-of-N.json next to compile_commands.json)")
    h.add_argument("--merge-summaries", nargs="+", metavar=("OUT", "IN"),
                   help="merge the summaries of the --summaries-only --shard runs IN ... into the "
                        "project's summaries OUT, analysing again the files whose entries from "
                        "other shards changed until they settle (pass the shards' torch-tidy options)")
    h.add_argument("--summaries-from", metavar="FILE",
                   help="analyse each file once with the project's summaries in FILE (the OUT of "
                        "--merge-summaries) instead of collecting them; FILE is not written")
    h.add_argument("--merge-sarif", nargs="+", metavar=("OUT", "IN"),
                   help="merge the SARIF reports IN ... of the shards into one report OUT (one run, "
                        "each finding once, in an unsharded run's order) and exit")


def check_shard_arguments(args):
    """Checks the shard options; reads --summaries-from (args.summaries_start)."""
    args.shard_spec = None
    if args.shard is not None:
        args.shard_spec = parse_shard(args.shard)
        if args.shard_spec is None:
            fail("--shard: '%s' is not K/N with 1 <= K <= N (e.g. --shard 2/4)" % args.shard)
    for opt, value in (("--merge-summaries", args.merge_summaries), ("--merge-sarif", args.merge_sarif)):
        if value is not None and len(value) < 2:
            fail("%s OUT IN...: give the merged file and at least one file to merge" % opt)
    if args.merge_sarif and (args.merge_summaries or args.shard):
        fail("--merge-sarif only merges reports: drop %s" % (
            "--merge-summaries" if args.merge_summaries else "--shard"))
    if args.merge_summaries:
        given = [o for o, v in (("--shard", args.shard), ("--summaries-only", args.summaries_only),
                                ("--summaries-from", args.summaries_from), ("FILE_REGEX", args.files),
                                ("--no-summaries", not args.summaries), ("--fix", args.fix),
                                ("--export-fixes", args.export_fixes), ("-o", args.output),
                                ("--format", args.format != "text"), ("--baseline", args.baseline),
                                ("--diff", args.diff is not None)) if v]
        if given:
            fail("--merge-summaries takes the shards' files and writes no report: drop %s"
                 % " and ".join(given))
        args.summaries_only = True  # the project's summaries, from the shards'
        args.summaries_target = os.path.abspath(args.merge_summaries[0])
    if args.summaries_out is not None and not (args.summaries_only and args.shard):
        fail("--summaries-out goes with --summaries-only --shard K/N")
    if args.summaries_from is not None:
        if not args.summaries:
            fail("--summaries-from and --no-summaries exclude each other")
        if args.summaries_only:
            fail("--summaries-only collects the summaries, --summaries-from takes them: drop one")
        table, why = read_summary_file(args.summaries_from)
        if table is None:
            fail("--summaries-from: '%s': %s" % (args.summaries_from, why))
        args.summaries_start = table
        args.summaries_target = ""
        args.summaries_single_round = True
    elif args.shard and args.summaries and not args.summaries_only:
        fail("--shard with summaries across files: run --summaries-only --shard K/N per shard, "
             "--merge-summaries, then --shard K/N --summaries-from the merged file "
             "(docs/integration/ci.md); or pass --no-summaries")
    if args.shard and args.summaries_only:
        args.summaries_start = {"functions": [], "calls": []}
        args.summaries_target = ""


def default_summaries_out(db_dir, shard):
    return os.path.join(db_dir, "torch-tidy-summaries.shard-%d-of-%d.json" % shard)


def shard_text(shard, options, states):
    """A shard's summaries file: each file's export and the digest of the
    functions entries its last analysis read (what its export depends on)."""
    files = {st.entry.file: {"export": st.export, "view": view_digest(facts_view(st.view))}
             for st in states if st.export is not None}
    return json.dumps({"format": SHARD_FORMAT, "version": SHARD_VERSION, "shard": "%d/%d" % shard,
                       "options": options, "files": files},
                      indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def shard_table(states):
    """The table of a shard's own exports."""
    return merge_summaries([st.export for st in states if st.export is not None])


def read_shard(path):
    """The contents of a shard's summaries file, checked. Raises InputError."""
    where = "--merge-summaries: '%s'" % path
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("%s: cannot read it: %s" % (where, getattr(e, "strerror", None) or e))
    except ValueError as e:
        raise InputError("%s: not valid JSON: %s" % (where, e))
    if not isinstance(data, dict) or data.get("format") != SHARD_FORMAT or data.get("version") != SHARD_VERSION:
        raise InputError("%s: not the summaries of a shard (--summaries-only --shard K/N writes them)" % where)
    shard = parse_shard(data.get("shard") if isinstance(data.get("shard"), str) else "")
    options, files = data.get("options"), data.get("files")
    if shard is None or not (isinstance(options, list) and all(isinstance(o, str) for o in options)) \
            or not isinstance(files, dict):
        raise InputError("%s: no \"shard\", \"options\" or \"files\"" % where)
    out = {}
    for file, item in files.items():
        try:
            if not (isinstance(item, dict) and isinstance(item.get("view"), str)):
                raise SummaryError("no \"view\"")
            out[file] = (checked_summaries(item.get("export"), with_reads=True), item["view"])
        except SummaryError as e:
            raise InputError("%s: the summaries of %s: %s" % (where, file, e))
    return {"shard": shard, "options": options, "files": out}


def merge_setup(paths, options):
    """({file: (export, view digest)}, the table of every export) of the shards'
    files: all N shards, once each, made with these torch-tidy options."""
    shards = [(p, read_shard(p)) for p in paths]
    n = shards[0][1]["shard"][1]
    seen = {}
    for path, s in shards:
        k, m = s["shard"]
        if m != n:
            raise InputError("--merge-summaries: '%s' is shard %d/%d, '%s' one of %d"
                             % (path, k, m, shards[0][0], n))
        if k in seen:
            raise InputError("--merge-summaries: shard %d/%d twice ('%s', '%s')" % (k, n, seen[k], path))
        seen[k] = path
        if s["options"] != options:
            raise InputError("--merge-summaries: '%s' was made with the torch-tidy options [%s], this "
                             "run has [%s]: pass the shards' options"
                             % (path, " ".join(s["options"]), " ".join(options)))
    missing = [k for k in range(1, n + 1) if k not in seen]
    if missing:
        raise InputError("--merge-summaries: shard %s of %d missing" % (
            ", ".join("%d/%d" % (k, n) for k in missing), n))
    preset = {}
    for path, s in shards:
        for file, item in s["files"].items():
            if file in preset:
                raise InputError("--merge-summaries: %s is in two shards" % file)
            preset[file] = item
    return preset, merge_summaries([export for export, _ in preset.values()])
