"""Summaries across files: the files analysed in rounds with the project's table
until it settles, written next to compile_commands.json."""

import concurrent.futures
import os
import subprocess

from .cache import CACHE_STORED_STATUSES, ResultCache
from .common import InputError, PROG, run_all, write_if_changed
from .pch import build_pch, plan_pch
from .summary_file import (Reads, SUMMARIES_FILE, SummaryTable, agrees, facts_view,
                           merge_summaries, read_summary_file, summaries_text, view_changes,
                           view_digest)
from .summary_start import (FileState, MAX_SUMMARY_ROUNDS, first_table, reuse_conflict,
                            summary_source_lookup)
from .tidy import Result, run_file
from .tools import find_pch_clang

# docs/summaries.md: each file's analysis exports a few facts per function it defines
# and its calls of functions it only declares (torch-tidy --export-summaries); the
# project's table is the merge of every file's export, and every file is analysed with
# it (--summaries). A file's facts can depend on the table, so the collection runs in
# rounds: after each, the files whose read entries (the functions it calls without
# defining them, the calls of the functions it defines) changed are analysed again,
# until none did (facts only turn on: the rounds end) or MAX_SUMMARY_ROUNDS. Each round
# analyses its files against one table and the merge is sorted, so neither the order
# of the files nor -j changes anything. The final table is written next to
# compile_commands.json; the next run starts from it.
#
# Starting from the previous table saves a round, but a fact that a changed file no
# longer supports could stay alive through a cycle of calls across files (a() and b()
# in two files, each training because the other does). With the result cache the
# runner knows which files changed (their code, headers, flags or configuration): the
# previous table's entries of those files, and of every file that read them (and so
# on), are left out of the first table, and the unchanged files that read them wait
# (are "deferred") until the changed files they read were analysed again. The rest of
# the previous table is what a run from scratch would compute again. Without the
# cache the previous table is used as it is.
#
# Leaving those entries out makes every file that reads one analyse again in round 1
# even when the change changed no summary (an edited header included everywhere: each
# file twice). So they are kept (reused) unless a cycle of functions entries read
# across files could keep a fact alive through them (first_table); a file on no such
# cycle has one fixpoint, which the rounds reach from any start. The prediction of the
# cycles is checked after round 0 (reuse_conflict); when it was wrong, the rounds
# start again without the kept entries.


def summaries_supported(tidy):
    """Whether this torch-tidy has --summaries and --export-summaries (its --help says so)."""
    try:
        out = subprocess.run([tidy, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, errors="replace", timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "--export-summaries" in out and "--summaries" in out


def summaries_wanted(args, tidy, entries):
    """(True, None) when the files are analysed with the project's summaries, else
    (False, why not)."""
    if not args.summaries:
        return False, "--no-summaries"
    if len(entries) < 2 and not args.summaries_only and getattr(args, "summaries_start", None) is None:
        return False, "only one file is analysed"
    if not summaries_supported(tidy):
        return False, "%s has no --export-summaries option" % tidy
    return True, None


class SummaryInfo:
    def __init__(self):
        self.rounds = 0
        self.analyses = 0
        self.path = None
        self.written = False
        self.functions = 0
        self.calls = 0
        self.settled = True
        self.error = None
        self.states = []        # the FileStates, for a shard's summaries file
        self.unsettled = []     # --summaries-from: files whose export the table does not hold


def run_summaries(args, tidy, version, entries, tmpdir, progress, verbose):
    """Analyses the files in rounds with the project's summaries (see above).
    Returns (results, files from the cache, cache, PCH groups, SummaryInfo).

    The sharded phases (docs/integration/ci.md) set, on args: summaries_start, a
    table to start from as it is instead of the project's file (--shard: empty;
    --summaries-from: the merged table; --merge-summaries: the shards' exports);
    summaries_target, where the final table goes ('': nowhere; default: the
    project's file); summaries_preset, {file: (export, digest of the functions
    entries it read)} of the shards, taken instead of an analysis while the file
    reads the same functions entries (--merge-summaries); summaries_single_round,
    one analysis per file with the table, whose entries are then checked against
    the exports (--summaries-from)."""
    info = SummaryInfo()
    start = getattr(args, "summaries_start", None)
    target = getattr(args, "summaries_target", None)
    preset = getattr(args, "summaries_preset", None) or {}
    single = getattr(args, "summaries_single_round", False)
    info.path = os.path.join(args.summaries_dir, SUMMARIES_FILE) if target is None else \
        target or getattr(args, "summaries_from", None) or SUMMARIES_FILE
    note = lambda m: progress.message("%s: note: %s" % (PROG, m))
    previous_text = None
    if start is not None:
        previous = start
    else:
        previous, why = read_summary_file(info.path)
        try:
            with open(info.path, encoding="utf-8", errors="surrogateescape") as f:
                previous_text = f.read()
        except OSError:
            previous_text = None
        if previous is None:
            if why != "no such file" and not args.quiet:
                note("%s ignored: %s; it is written anew" % (os.path.relpath(info.path), why))
            previous = {"functions": [], "calls": []}
    states = [FileState(e) for e in entries]
    cache = None
    if args.cache and not preset:  # (--merge-summaries: the shards' exports are its cache)
        clang_c, why = find_pch_clang(args.clang, version[0])
        if clang_c is None:
            note("result cache not used: %s" % why)
        else:
            cache = ResultCache(args, tidy, version, clang_c, note)
            cache.summaries = True
            summary_source_lookup(cache, states, tmpdir, args.jobs, verbose)
    record = None
    if cache is not None and previous_text is not None:
        record = cache.lookup_project(args.summaries_dir, previous_text)
    if start is None:
        table, seeds, reused, afresh = first_table(previous, states, args.database_files,
                                                   cache is not None, record, verbose)
    else:  # every entry as it is (a header's too): nothing stale to leave out
        table, seeds, reused, afresh = merge_summaries([start]), {}, set(), set()

    clang = pch_dir = None
    if args.pch:
        clang, why = find_pch_clang(args.clang, version[0])
        if clang is None:
            if args.clang:
                raise InputError("--clang: %s" % why)
            note("no precompiled header: %s" % why)
        else:
            pch_dir = os.path.abspath(args.pch_dir) if args.pch_dir else tmpdir
            os.makedirs(pch_dir, exist_ok=True)
    groups, submitted, logged = {}, set(), set()

    def pch_log(file, message):  # each file's PCH decision once, not in every round
        if (file, message) not in logged:
            logged.add((file, message))
            verbose(file, message)
    sdir = os.path.join(tmpdir, "summaries")
    os.makedirs(sdir)
    selected = {st.entry.file for st in states}
    # The entries of the database's files that are not analysed: kept as they are.
    others = args.database_files - selected
    carried = {key: [e for e in previous[key] if os.path.normpath(e.get("file") or "/") in others]
               for key in ("functions", "calls")}
    progress.total = sum(st.level == 0 for st in states)

    def view_of(index, file, reads):
        """What the file reads of the table; for --merge-summaries, which makes
        the table and no report, only the functions entries (its facts depend on
        them; the calls entries only change its diagnostics)."""
        view = index.view(file, reads)
        return facts_view(view) if preset else view

    def lookup(i, rnd, table_index):
        """Round rnd's result of file i from the shards' summaries or the cache, or None."""
        st = states[i]
        if st.entry.file in preset:
            export, digest = preset[st.entry.file]
            view = view_of(table_index, st.entry.file, Reads.of(export))
            if view_digest(view) == digest:  # what its shard's last analysis read
                res = Result(st.entry)
                res.export, res.round, res.cached = export, rnd, True
                if rnd == 0:
                    verbose(st.entry.file, "summaries from its shard")
                return res, view, digest
        reads = Reads.of(st.export) if st.export is not None else st.reads
        if cache is None or st.key is None or st.key.result is None or reads is None:
            return None
        view = view_of(table_index, st.entry.file, reads)
        digest = view_digest(view)
        res = cache.load_result(cache.summary_result_key(st.key.result, digest), st.entry, tmpdir, i)
        if res is None or res.export is None:
            if rnd == 0:
                verbose(st.entry.file, "cache miss: the summaries it reads changed")
            return None
        if rnd == 0 and st.second_level:
            verbose(st.entry.file, "cache hit (preprocessed; the manifest said: %s)" % st.second_level)
        elif rnd == 0:
            verbose(st.entry.file, "cache hit")
        res.round = rnd
        return res, view, digest

    def analyse(i, rnd, table_path, table_index, plan):
        st = states[i]
        export = os.path.join(sdir, "export-%05d-%d.json" % (i, rnd))
        res = run_file(args, tidy, st.entry, plan.get(st.entry.file), tmpdir, i,
                       ["--summaries=%s" % table_path, "--export-summaries=%s" % export])
        res.round = rnd
        exported, why = read_summary_file(export, with_reads=True)
        if exported is None:
            if why != "no such file" and res.status not in ("crashed", "failed"):
                note("%s: its summaries are unreadable (%s); analysed without them"
                     % (os.path.relpath(st.entry.file), why))
            exported = {"functions": [], "calls": [], "reads": []}
        res.export = exported
        view = view_of(table_index, st.entry.file, Reads.of(exported))
        digest = view_digest(view)
        if cache is not None and st.key is not None:
            cache.store(st.key, res, digest)
        return res, view, digest

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        todo = {i: None for i, st in enumerate(states) if st.level == 0}
        final = None
        for rnd in range(MAX_SUMMARY_ROUNDS):
            info.rounds = rnd + 1
            table_index = SummaryTable(table)
            table_path = os.path.join(sdir, "table-%d.json" % rnd)
            with open(table_path, "w", encoding="utf-8") as f:
                f.write(summaries_text(table))
            order = sorted(todo)
            found = dict(zip(order, pool.map(lambda i: lookup(i, rnd, table_index), order)))
            misses = [i for i in order if found[i] is None]
            plan = {}
            if clang is not None and misses:
                plan = plan_pch(args, tidy, [states[i].entry for i in misses], clang, pch_dir,
                                pch_log, groups)
            for g in {id(g): g for g in plan.values()}.values():
                if id(g) not in submitted:
                    submitted.add(id(g))
                    pool.submit(build_pch, g, clang)

            def work(i):
                st = states[i]
                why = todo[i]
                hit = found[i]
                if hit is not None:
                    res, view, digest = hit
                    how = "from the cache"
                else:
                    res, view, digest = analyse(i, rnd, table_path, table_index, plan)
                    st.analysed += 1
                    how = "analysed"
                if rnd > 0 or hit is None:  # round 0's hits: the cache's line says it
                    verbose(st.entry.file, "round %d: %s%s" % (rnd, how, ": " + why if why else ""))
                st.result, st.export, st.view, st.digest = res, res.export, view, digest
                progress.file_done(res)
                progress.pch_note(st.entry.file, res.pch_note, args.quiet, verbose)
            run_all(pool, work, sorted(order, key=lambda i: states[i].entry.file in plan))
            info.analyses += sum(found[i] is None for i in order)
            new = merge_summaries([st.export if st.export is not None else seeds.get(st.entry.file)
                                   for st in states if st.export is not None or st.entry.file in seeds]
                                  + [carried])
            new_index = SummaryTable(new)
            if single:  # the table is the project's: each file's export should be in it
                info.unsettled = [st.entry.file for st in states if st.export is not None
                                  and st.result.status not in ("crashed", "failed")
                                  and not agrees(st.export, table_index)]
                final = table
                break
            conflict = reused and rnd == 0 and reuse_conflict(states, reused, afresh,
                                                              (table_index, new_index))
            if conflict and rnd + 1 < MAX_SUMMARY_ROUNDS:
                # Round 0 kept previous entries that a cycle could keep alive: start
                # again from the table without them, as round 1.
                for st in states:
                    st.result = st.export = st.view = st.digest = None
                table, seeds, reused, afresh = first_table(
                    previous, states, args.database_files, True, record, verbose, reuse=False,
                    offset=1)
                why = "again without the previous summaries: %s" % conflict
                todo = {i: why for i, st in enumerate(states) if st.level == 1}
                progress.start_round(1, len(todo), "summaries across files, round 1: %d of %d "
                                     "file%s again, without the previous summaries: %s"
                                     % (len(todo), len(states), "" if len(states) == 1 else "s",
                                        conflict))
                continue
            todo = {}
            for i, st in enumerate(states):
                if st.view is None or st.result.status in ("crashed", "failed"):
                    continue
                view = view_of(new_index, st.entry.file, Reads.of(st.export))
                if view_digest(view) != st.digest:
                    todo[i] = "the summaries it reads changed (%s)" % view_changes(st.view, view, new_index)
            waiting = [i for i, st in enumerate(states) if st.view is None and st.level > rnd]
            ready = [i for i in waiting if states[i].level == rnd + 1]
            if not ready and not todo and waiting:
                ready = [i for i in waiting if states[i].level == min(states[j].level for j in waiting)]
            for i in ready:
                todo[i] = "deferred until the summaries it reads were computed again"
            table = new
            if not todo:
                final = new
                break
            if rnd + 1 < MAX_SUMMARY_ROUNDS:
                changed = sum(w.startswith("the summaries it reads changed") for w in todo.values())
                deferred = len(todo) - changed
                whys = (["%d because the summaries %s from other files changed"
                         % (changed, "it reads" if changed == 1 else "they read")]
                        if changed else []) + \
                       (["%d deferred until the summaries %s were computed again"
                         % (deferred, "it reads" if deferred == 1 else "they read")]
                        if deferred else [])
                progress.start_round(rnd + 1, len(todo), "summaries across files, round %d: %d of "
                                     "%d file%s again (%s)" % (
                                         rnd + 1, len(todo), len(states),
                                         "" if len(states) == 1 else "s", "; ".join(whys)))
        if final is None:
            info.settled = False
            final = table
            for i in sorted(todo):
                verbose(states[i].entry.file, "round limit: its diagnostics are from round %d, "
                        "before %s" % (states[i].result.round, todo[i].split(" (")[0].replace(
                            "the summaries it reads changed", "a change of the summaries it reads")))
    finally:
        pool.shutdown(wait=True)

    info.functions, info.calls = len(final["functions"]), len(final["calls"])
    text = summaries_text(final)
    args.summaries_table = os.path.join(sdir, "final.json")
    with open(args.summaries_table, "w", encoding="utf-8") as f:
        f.write(text)
    info.states = states
    if target != "":
        info.written, info.error = write_if_changed(info.path, text)
    if cache is not None and info.settled and not info.error and start is None:
        # Which code wrote the table: the next run knows what changed since.
        files = {f: k for f, k in (record or {}).items() if f in others}
        for st in states:
            if st.key is not None and st.key.result and st.result.status in CACHE_STORED_STATUSES:
                files[st.entry.file] = st.key.result
        cache.store_project(args.summaries_dir, text, files)
    results = [st.result for st in states]
    from_cache = sum(st.analysed == 0 for st in states)
    return results, from_cache, cache, list({id(g): g for g in groups.values()
                                               if id(g) in submitted}.values()), info
