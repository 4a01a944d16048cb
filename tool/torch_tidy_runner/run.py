"""One run: the files analysed (each on its own, or in rounds with the summaries),
then the report written, the fix-its applied and the exit status."""

import concurrent.futures
import os
import shlex
import sys
import time

from .baseline import adopt_findings
from .cache import open_cache
from .common import (EXIT_BAD_INPUT, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TOOL_FAILURE, InputError,
                     PROG, run_all, unwritable, write_if_changed)
from .fixes import apply_fixes, merged_fixes, write_fixes_yaml
from .flags import drop_flags, drop_gcc_only_flags, flag_regex
from .pch import build_pch, plan_pch
from .progress import Progress
from .reports import json_report, source_root, summary_counts, text_report, unique_diagnostics
from .sarif import sarif_report
from .shards import shard_table, shard_text
from .summary_file import SUMMARIES_FILE
from .summary_rounds import run_summaries, summaries_wanted
from .summary_start import MAX_SUMMARY_ROUNDS
from .tidy import check_tidy_options, run_file, tidy_options
from .tools import find_pch_clang, llvm_version


def run(args, start, db_path, entries, tidy, tmpdir):
    version = llvm_version(tidy)
    if version is None:
        raise InputError("%s --version does not name an LLVM version: is it clang-tidy?" % tidy)
    if not entries and not args.shard_spec:  # (a shard may have no file: an empty report)
        raise InputError("no files to analyse in %s" % db_path)
    progress = Progress("none" if args.quiet else args.progress, len(entries))
    verbose = (lambda f, m: progress.message("%s: %s: %s" % (PROG, os.path.relpath(f), m))) \
        if args.verbose else (lambda f, m: None)

    gcc_only = drop_gcc_only_flags(entries)
    if gcc_only and not args.quiet:
        progress.message("%s: note: dropped compiler flags only GCC knows, which clang rejects: %s"
                         % (PROG, ", ".join("'%s' (%d file%s)" % (f, n, "" if n == 1 else "s")
                                            for f, n in sorted(gcc_only.items()))))
    if args.drop_flag or gcc_only:
        args.db_dir = drop_flags(entries, args.drop_flag, tmpdir)
    if entries:
        check_tidy_options(args, tidy, entries[0])
    summaries, why = summaries_wanted(args, tidy, entries)
    if summaries:
        target = args.summaries_out if args.shard_spec else getattr(args, "summaries_target", None)
        target = target or os.path.join(args.summaries_dir, SUMMARIES_FILE)
        if args.summaries_only and unwritable(target):
            raise InputError("%s: %s" % ("--merge-summaries" if args.merge_summaries else
                                         "--summaries-only", unwritable(target)))
        results, from_cache, cache, groups, info = run_summaries(
            args, tidy, version, entries, tmpdir, progress, verbose)
        if args.summaries_only and args.shard_spec:  # the shard's summaries
            table = shard_table(info.states)
            info.path, info.functions, info.calls = target, len(table["functions"]), len(table["calls"])
            info.written, info.error = write_if_changed(target, shard_text(
                args.shard_spec, tidy_options(args), info.states))
        if info.unsettled:
            progress.message("%s: note: %s does not hold the summaries %d file%s export%s now (e.g. "
                             "%s): %s diagnostics may differ from an unsharded run's; merge the "
                             "summaries of these sources again (--merge-summaries)"
                             % (PROG, args.summaries_from, len(info.unsettled),
                                "" if len(info.unsettled) == 1 else "s",
                                "s" if len(info.unsettled) == 1 else "",
                                os.path.relpath(info.unsettled[0]),
                                "its" if len(info.unsettled) == 1 else "their"))
    elif args.summaries_only:
        raise InputError("--summaries-only: %s" % why)
    else:
        if args.summaries and args.verbose:
            progress.message("%s: note: no summaries across files: %s" % (PROG, why))
        results, from_cache, cache, groups = run_each(args, tidy, version, entries, tmpdir,
                                                      progress, verbose)
        info = None
    if cache is not None:
        cache.evict()
    elapsed = time.time() - start
    for g in groups:
        if g.error:
            progress.message("%s: note: precompiled header of %s not used: %s"
                             % (PROG, " ".join(g.includes), g.error))
    if info is not None:
        if not info.settled:
            progress.message("%s: note: the summaries did not settle in %d rounds: the diagnostics "
                             "of some files were computed with older summaries (-v names them)"
                             % (PROG, MAX_SUMMARY_ROUNDS))
        if info.error:
            progress.message("%s: %s: %s" % (PROG, "error" if args.summaries_only else "warning",
                                              info.error))
        if args.verbose:
            progress.message("%s: summaries: %d round%s, %d analys%s, %d function%s and %d call%s, "
                             "%s %s" % (PROG, info.rounds, "" if info.rounds == 1 else "s",
                                        info.analyses, "is" if info.analyses == 1 else "es",
                                        info.functions, "" if info.functions == 1 else "s",
                                        info.calls, "" if info.calls == 1 else "s",
                                        os.path.relpath(info.path),
                                        "written" if info.written else "unchanged"))
    if args.summaries_only:
        return summaries_only_status(args, results, info, elapsed, from_cache, db_path)
    return report(args, tidy, version, results, from_cache, elapsed, tmpdir, db_path, progress)


def summaries_only_status(args, results, info, elapsed, from_cache, db_path):
    """--summaries-only: no report; the exit status says whether the table is complete."""
    status = EXIT_CLEAN
    report_failures(args, results, db_path)
    if any(r.unknown_flags for r in results):
        status = EXIT_BAD_INPUT
    if any(r.status in ("crashed", "failed") for r in results) or info.error:
        status = max(status, EXIT_TOOL_FAILURE)
    if not args.quiet:
        sys.stderr.write("%s: %d file%s, summaries of %d function%s and %d call%s in %s (%s), "
                         "%.1f s%s\n" % (
                             PROG, len(results), "" if len(results) == 1 else "s",
                             info.functions, "" if info.functions == 1 else "s",
                             info.calls, "" if info.calls == 1 else "s", os.path.relpath(info.path),
                             "written" if info.written else "unchanged", elapsed,
                             ", %d from %s" % (from_cache, "the shards" if args.merge_summaries
                                               else "the cache") if from_cache else ""))
    return status


def run_each(args, tidy, version, entries, tmpdir, progress, verbose):
    """Analyses every file on its own. Returns (results, files from the cache, cache,
    PCH groups)."""
    cache, hits, cache_keys = None, {}, {}
    if args.cache:
        cache, hits, cache_keys = open_cache(args, tidy, version, entries, tmpdir, progress, verbose)
    plan = {}
    clang = None
    if args.pch:
        clang, why = find_pch_clang(args.clang, version[0])
        if clang is None:
            if args.clang:
                raise InputError("--clang: %s" % why)
            progress.message("%s: note: no precompiled header: %s" % (PROG, why))
        else:
            pch_dir = os.path.abspath(args.pch_dir) if args.pch_dir else tmpdir
            os.makedirs(pch_dir, exist_ok=True)
            plan = plan_pch(args, tidy, [e for i, e in enumerate(entries) if i not in hits],
                            clang, pch_dir, verbose)
    groups = list({id(g): g for g in plan.values()}.values())
    results = [None] * len(entries)
    order = sorted(range(len(entries)), key=lambda i: entries[i].file in plan)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for g in groups:
            pool.submit(build_pch, g, clang)

        def work(i):
            if i in hits:
                r = hits[i]
            else:
                r = run_file(args, tidy, entries[i], plan.get(entries[i].file), tmpdir, i)
                if i in cache_keys:
                    cache.store(cache_keys[i], r)
            results[i] = r
            progress.file_done(r)
            progress.pch_note(r.entry.file, r.pch_note, args.quiet, verbose)
            return r
        run_all(pool, work, order)
    return results, len(hits), cache, groups


def report_failures(args, results, db_path):
    """The unknown compiler flags and the files torch-tidy failed on, on stderr."""
    unknown = {}
    for r in results:
        for flag in r.unknown_flags:
            unknown.setdefault(flag, []).append(r.entry.file)
    for flag, files in unknown.items():
        sys.stderr.write("%s: error: clang does not know the compiler flag '%s' (used by %s%s "
                         "in %s); remove it from the build or pass %s\n"
                         % (PROG, flag, os.path.relpath(files[0]),
                            " and %d more" % (len(files) - 1) if len(files) > 1 else "", db_path,
                            shlex.quote("--drop-flag=" + flag_regex(flag))))
    for r in results:
        if r.status in ("crashed", "failed"):
            sys.stderr.write("%s: error: %s: %s\n" % (PROG, os.path.relpath(r.entry.file), r.message))
            if getattr(r, "stderr", None) and args.verbose:
                sys.stderr.write(r.stderr)


def report(args, tidy, version, results, from_cache, elapsed, tmpdir, db_path, progress):
    """Writes the report, applies the fix-its; returns the exit status."""
    diags = unique_diagnostics(results)
    diags, adoption = adopt_findings(args, diags, results)  # fingerprints, --baseline, --diff
    status = EXIT_FINDINGS if diags and not args.exit_zero else EXIT_CLEAN
    blocks = merged_fixes(results) if (args.fix or args.export_fixes) else []
    blocks = adoption.kept_fix_blocks(blocks)
    if args.export_fixes:
        try:
            write_fixes_yaml(args.export_fixes, blocks)
        except OSError as e:
            raise InputError("--export-fixes: cannot write '%s': %s" % (args.export_fixes, e.strerror))
    fix_errors = apply_fixes(args, tidy, results, blocks, tmpdir, version[0]) if args.fix else []

    root = source_root(args.source_root)
    if args.format == "text":
        report = text_report(diags)
    elif args.format == "json":
        report = json_report(diags, results, root, tidy, elapsed)
    else:
        report = sarif_report(diags, root, version[1], merged_fixes(results), args.docs_url, tidy)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(report)
        except OSError as e:
            raise InputError("-o: cannot write '%s': %s" % (args.output, e.strerror))
    else:
        sys.stdout.write(report)
        sys.stdout.flush()

    for e in fix_errors:
        progress.message("%s: error: %s" % (PROG, e))
        status = max(status, EXIT_TOOL_FAILURE)
    report_failures(args, results, db_path)
    if any(r.unknown_flags for r in results):
        status = EXIT_BAD_INPUT
    if any(r.status in ("crashed", "failed") for r in results):
        status = EXIT_TOOL_FAILURE
    without = [r for r in results if r.no_torch]
    if without:
        r = without[0]
        progress.message("%s: note: no torch-* check is enabled for %d of %d file%s (e.g. '%s': "
                         "Checks '%s' from %s); add 'torch-*' to Checks to enable them"
                         % (PROG, len(without), len(results), "" if len(results) == 1 else "s",
                            os.path.relpath(r.entry.file), r.no_torch[0], r.no_torch[1]))
    if not args.quiet:
        c = summary_counts(diags, results, elapsed)
        sys.stderr.write("%s: %d file%s, %d warning%s, %d error%s, %.1f s%s%s%s%s\n" % (
            PROG, c["files"], "" if c["files"] == 1 else "s", c["warnings"],
            "" if c["warnings"] == 1 else "s", c["errors"], "" if c["errors"] == 1 else "s",
            c["seconds"], ", %d with a precompiled header" % c["filesWithPch"] if c["filesWithPch"] else "",
            ", fixes applied" if args.fix and blocks else "",
            ", %d from the cache" % from_cache if from_cache else "", adoption.summary()))
    return status
