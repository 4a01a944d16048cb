"""The command line: the options, their checks, and main()."""

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.parse

from . import common
from .baseline import add_adoption_arguments, check_adoption_arguments
from .cache import add_cache_arguments, check_cache_arguments
from .codechecker import write_codechecker_labels
from .common import EXIT_CLEAN, EXIT_TOOL_FAILURE, InputError, PROG, fail, unwritable
from .database import find_database, load_database, select_entries, select_shard
from .gitdiff import diff_entries
from .run import run
from .sarif import merge_sarif_files
from .shards import (add_shard_arguments, check_shard_arguments, default_summaries_out,
                     merge_setup)
from .summary_file import SUMMARIES_FILE
from .tidy import tidy_options
from .tools import find_torch_tidy, llvm_version


# --help's first line (the entry point's docstring says more).
DESCRIPTION = "run-torch-tidy: run torch-tidy over a project's compile_commands.json."


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail("%s (see --help)" % message)


def parse_args(argv):
    p = Parser(prog=PROG, description=DESCRIPTION,
               epilog="Exit status: 0 clean, 1 diagnostics reported, 2 bad input "
                      "(options, compilation database, unknown compiler flags), "
                      "3 torch-tidy crashed or could not run.",
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="FILE_REGEX",
                   help="only files whose path matches one of these regular expressions "
                        "(searched in the absolute path); each must match a file of the database")
    p.add_argument("-p", dest="build_path", metavar="BUILD_DIR",
                   help="directory holding compile_commands.json (or the file itself); "
                        "default: the current directory and its parents")
    p.add_argument("-j", dest="jobs", type=int, default=0,
                   help="number of parallel torch-tidy runs (default: number of CPUs)")
    p.add_argument("--paths", action="store_true",
                   help="the FILE arguments are paths, not regular expressions (as pre-commit passes "
                        "them): a source file not in the database is an error, a header not in it is "
                        "skipped (it is analysed through the files that include it)")
    p.add_argument("--exclude", action="append", default=[], metavar="REGEX",
                   help="skip files whose path matches REGEX (repeatable)")
    g = p.add_argument_group("passed to torch-tidy")
    g.add_argument("--checks", help="checks filter, as torch-tidy --checks")
    g.add_argument("--config", help="inline configuration, as torch-tidy --config")
    g.add_argument("--config-file", help="configuration file, as torch-tidy --config-file")
    g.add_argument("--header-filter", help="as torch-tidy --header-filter")
    g.add_argument("--warnings-as-errors", help="as torch-tidy --warnings-as-errors")
    g.add_argument("--extra-arg", action="append", default=[], metavar="ARG",
                   help="compiler argument to append (repeatable)")
    g.add_argument("--extra-arg-before", action="append", default=[], metavar="ARG",
                   help="compiler argument to prepend (repeatable)")
    g.add_argument("--drop-flag", action="append", default=[], metavar="REGEX",
                   help="remove compiler flags that fully match REGEX from every compile command, "
                        "e.g. flags clang does not know (repeatable; the GCC-only flags of a known "
                        "list are dropped without it, with a note)")
    g.add_argument("--tidy-arg", action="append", default=[], metavar="ARG",
                   help="any other torch-tidy option, e.g. --tidy-arg=--system-headers (repeatable)")
    g.add_argument("--torch-tidy", metavar="PATH",
                   help="torch-tidy binary (default: the one next to this script, then PATH)")
    f = p.add_argument_group("fix-its")
    f.add_argument("--fix", action="store_true",
                   help="apply the fix-its once all files are analysed (each replacement once, "
                        "with clang-apply-replacements; without it, torch-tidy --fix file by file)")
    f.add_argument("--export-fixes", metavar="FILE",
                   help="write all diagnostics with their fix-its to one YAML file "
                        "(clang-apply-replacements format)")
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                   help="report format (default: text)")
    o.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    o.add_argument("--docs-url", metavar="URL",
                   help="SARIF: each torch-* rule's helpUri is URL/<check>.md (e.g. the docs/checks/ "
                        "folder of your torch-tidy repository on the web); default: no helpUri")
    o.add_argument("--codechecker-labels", metavar="DIR",
                   help="write the CodeChecker labels of the torch-* checks (doc_url, severity, "
                        "profile) into DIR/analyzers/clang-tidy.json, DIR being a CodeChecker "
                        "labels directory (pip: <venv>/share/codechecker/config/labels), then exit; "
                        "each doc_url is URL/<check>.md with --docs-url=URL, else the file: URL "
                        "of the check's page (docs/integration/codechecker.md)")
    o.add_argument("--source-root", metavar="DIR",
                   help="SARIF/JSON paths are made relative to DIR (default: the git work tree "
                        "containing the current directory, else the current directory)")
    o.add_argument("--progress", choices=("auto", "tty", "lines", "none"), default="auto",
                   help="progress on stderr: a status line on a terminal, one line per file "
                        "otherwise (auto), or none")
    o.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary line")
    o.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when diagnostics are reported (bad input and crashes still fail)")
    c = p.add_argument_group("precompiled header of the LibTorch includes")
    c.add_argument("--no-pch", dest="pch", action="store_false", help="never use a precompiled header")
    c.add_argument("--pch-min-files", type=int, default=3, metavar="N",
                   help="build a precompiled header for a group of files with identical flags "
                        "and LibTorch includes only when it has at least N files (default: 3)")
    c.add_argument("--pch-include-regex", default=r"^(torch|ATen|c10|caffe2)/", metavar="REGEX",
                   help="included header names that go into the precompiled header "
                        "(default: %(default)s)")
    c.add_argument("--no-pch-instantiate-templates", dest="pch_instantiate", action="store_false",
                   help="do not instantiate LibTorch's templates while building the precompiled "
                        "header (by default they are, which saves each file about a third of its time)")
    c.add_argument("--pch-dir", metavar="DIR",
                   help="keep precompiled headers in DIR and reuse them in later runs "
                        "(default: a temporary directory removed at exit)")
    c.add_argument("--clang", metavar="PATH",
                   help="clang++ that builds the precompiled header; must be the LLVM version of "
                        "torch-tidy (default: /usr/lib/llvm-<major>/bin/clang++, then clang++-<major>)")
    s = p.add_argument_group("summaries across files (docs/summaries.md; installed: share/doc/torch-tidy/summaries.md)")
    s.add_argument("--no-summaries", dest="summaries", action="store_false",
                   help="analyse each file on its own: no summaries of the functions other files "
                        "define (by default, with more than one file, each file is analysed with "
                        "the project's summaries, collected in rounds until they settle, and "
                        "written to %s next to compile_commands.json)" % SUMMARIES_FILE)
    s.add_argument("--summaries-only", action="store_true",
                   help="only collect the project's summaries and write %s (even for one file); "
                        "no report, no fix-its, exit status 0 unless torch-tidy fails (for "
                        "CMAKE_CXX_CLANG_TIDY builds, which then pass --summaries=<that file> "
                        "to torch-tidy)" % SUMMARIES_FILE)
    p.add_argument("-v", "--verbose", action="store_true",
                   help="explain per file why a PCH is (not) used, whether the cache had its "
                        "result, and in which round of the summaries it was analysed and why")
    add_cache_arguments(p)
    add_shard_arguments(p)
    add_adoption_arguments(p)
    p.add_argument("--version", action="store_true",
                   help="print run-torch-tidy's version and the LLVM it is built on, then exit")
    args = p.parse_args(argv)
    if args.version:
        print_version()
        sys.exit(EXIT_CLEAN)
    if args.jobs < 0:
        fail("-j must be a positive number")
    if args.jobs == 0:
        args.jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if args.pch_min_files < 1:
        fail("--pch-min-files must be at least 1")
    if args.docs_url is not None:
        u = urllib.parse.urlsplit(args.docs_url)
        if u.scheme not in ("http", "https", "file") or not (u.netloc or u.scheme == "file"):
            fail("--docs-url must be an absolute http(s) or file URL, not '%s'" % args.docs_url)
    for opt, path in (("-o", args.output), ("--export-fixes", args.export_fixes)):
        if path is not None:
            why = unwritable(path)
            if why:
                fail("%s: %s" % (opt, why))
    for r in ([] if args.paths else args.files) + args.exclude + args.drop_flag + [args.pch_include_regex]:
        try:
            re.compile(r)
        except re.error as e:
            fail("invalid regular expression '%s': %s" % (r, e))
    check_cache_arguments(args)
    check_shard_arguments(args)
    check_adoption_arguments(args)
    if args.summaries_only:
        if not args.summaries:
            fail("--summaries-only and --no-summaries exclude each other")
        given = [o for o, v in (("--fix", args.fix), ("--export-fixes", args.export_fixes),
                                ("-o", args.output), ("--format", args.format != "text"))
                 if v]
        if given:
            fail("--summaries-only writes no report and applies no fix-its: drop %s"
                 % " and ".join(given))
    return args


def print_version():
    llvm = common.CONFIGURED_LLVM_VERSION
    if llvm.startswith("@"):
        try:
            v = llvm_version(find_torch_tidy(None))
        except InputError:
            v = None
        llvm = v[1] if v else "unknown (torch-tidy not found)"
    sys.stdout.write("%s %s (torch-tidy %s, LLVM %s)\n" % (PROG, common.VERSION, common.VERSION, llvm))


def main(argv):
    args = parse_args(argv)
    if args.codechecker_labels is not None:
        return write_codechecker_labels(args.codechecker_labels, find_torch_tidy(args.torch_tidy),
                                        args.docs_url)
    if args.merge_sarif:
        return merge_sarif_files(args.merge_sarif[0], args.merge_sarif[1:], args.quiet)
    start = time.time()
    db_path = find_database(args.build_path)
    args.db_dir = os.path.dirname(db_path)
    args.summaries_dir = args.db_dir  # the project's summaries: next to compile_commands.json
    database = load_database(db_path)
    args.database_files = {e.file for e in database}
    entries = select_entries(database, args.files, args.exclude, db_path, args.paths)
    if args.merge_summaries:
        args.summaries_preset, args.summaries_start = merge_setup(args.merge_summaries[1:],
                                                                  tidy_options(args))
        unknown = sorted(set(args.summaries_preset) - args.database_files)
        if unknown:
            raise InputError("--merge-summaries: %s is not in %s"
                             % (os.path.relpath(unknown[0]), db_path))
        entries = [e for e in entries if e.file in args.summaries_preset]
    if not entries and args.paths:
        return EXIT_CLEAN  # only headers were given: nothing to analyse
    if args.diff is not None:
        entries = diff_entries(args, entries)  # the changed files and their includers
        if not entries:
            return EXIT_CLEAN
    if args.shard_spec:
        entries = select_shard(entries, args.shard_spec, args.db_dir)
        if args.summaries_only:
            args.summaries_out = os.path.abspath(
                args.summaries_out or default_summaries_out(args.db_dir, args.shard_spec))
    absent = [e.file for e in entries if not os.path.isfile(e.file)]
    if absent:
        raise InputError("%s: listed in %s but not on disk (re-run CMake, or --exclude it)" % (
            "'%s'" % os.path.relpath(absent[0]) if len(absent) == 1 else
            "'%s' and %d more" % (os.path.relpath(absent[0]), len(absent) - 1), db_path))
    tidy = find_torch_tidy(args.torch_tidy)
    tmpdir = tempfile.mkdtemp(prefix="run-torch-tidy-")
    try:
        return run(args, start, db_path, entries, tidy, tmpdir)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def entry(argv):
    """main() as the program runs it: bad input is one line and status 2, never a
    traceback (unless RUN_TORCH_TIDY_DEBUG is set)."""
    try:
        return main(argv)
    except InputError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except BrokenPipeError:
        return EXIT_TOOL_FAILURE
    except Exception as e:  # never a traceback for the user
        if os.environ.get("RUN_TORCH_TIDY_DEBUG"):
            raise
        fail("internal error: %s: %s (set RUN_TORCH_TIDY_DEBUG=1 for a traceback)"
             % (type(e).__name__, e), EXIT_TOOL_FAILURE)
