"""Where the rounds of the summaries start: the table of round 0 built from the
previous run's table (less what changed, and what a cycle of calls across files
could keep alive), the files deferred until what they read is computed again,
and the check after round 0 that the reuse was safe."""

import concurrent.futures
import os

from .summary_file import Reads, SummaryTable, merge_summaries


MAX_SUMMARY_ROUNDS = 8


def strongly_connected(nodes, edges):
    """The strongly connected components of a graph (iterative Tarjan): a component
    comes after every component it has edges to."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(edges.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                comps.append(comp)
    return comps


class FileState:
    """One file's part in the rounds."""

    def __init__(self, entry):
        self.entry = entry
        self.key = None          # CacheKey, when the file can be cached
        self.reads = None        # Reads: what it reads of the table, once known (cache or export)
        self.result = None       # its latest Result
        self.export = None       # its latest export (functions, calls, reads)
        self.view = None         # the entries it read in the table of its latest analysis
        self.digest = None
        self.analysed = 0        # analyses in this run (not from the cache)
        self.level = 0           # the round it is first looked at (deferred files: later)
        self.second_level = None # why the manifest missed, when preprocessing found the entry


def summary_source_lookup(cache, states, tmpdir, jobs, log):
    """Each file's cache key and the USRs it reads, when the cache knows them (a file
    analysed before with the same code, headers, flags and configuration)."""
    todo = []
    for i, st in enumerate(states):
        k = cache.key(st.entry)
        if k.manifest is None:
            log(st.entry.file, "not cached: %s" % k.why)
            continue
        st.key = k
        result_key, why = cache.lookup_manifest(k, complete=True)
        if result_key is None:
            todo.append((i, why))
            continue
        st.reads = cache.lookup_reads(result_key)
        if st.reads is None:
            log(st.entry.file, "cache miss: no entry for its summaries")

    def second_level(item):
        i, why = item
        st = states[i]
        cache.preprocess(st.entry, st.key, tmpdir, i)
        if st.key.result is None:
            log(st.entry.file, "cache miss (%s); not cached: %s" % (why, st.key.why))
            st.key = None
            return
        st.reads = cache.lookup_reads(st.key.result)
        if st.reads is None:
            log(st.entry.file, "cache miss: %s" % why)
        else:
            st.second_level = why
            cache.write("m", st.key.manifest, {"deps": st.key.deps, "result": st.key.result})
    if todo:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(second_level, todo))


def first_table(previous, states, database_files, cached, record, log, reuse=True, offset=0):
    """The table of round 0, and the deferred files' first rounds (FileState.level).
    Returns (table, {deferred file: its entries in that table}, reused, afresh): the
    files whose previous functions entries the table keeps although they may change
    (reuse, below), and the files whose entries it leaves out.

    The previous table without the entries of files that are not in the database;
    with the cache, also without the entries of changed files (those whose code,
    headers, flags or configuration are not those that wrote the previous table, as
    the cache recorded them (record: {file: result key}), or of which it does not know
    what they read) and without the functions entries of the files that read a
    left-out functions entry (and so on). The unchanged files that read a left-out
    entry are deferred: they are first looked at in the round after the files they
    read; until then their entries in the table are merged in as they are.

    With reuse, the previous entries of those files are kept (the rounds then
    correct them), except the functions entries of the files on a cycle of
    functions entries read across these files (predicted from what each read last
    time, or from a changed file's previous calls) and of the files these read: a
    fact could keep itself alive around such a cycle; they start afresh. So a
    change that does not change the summaries needs no second analysis of the
    files that read them. After round 0, run_summaries checks the prediction with
    what the files read now (reuse_conflict) and starts again without reuse when
    it was wrong. offset: the round of this table (1 when starting again)."""
    keep = lambda e: os.path.normpath(e.get("file") or "/") in database_files
    functions = [f for f in previous["functions"] if keep(f)]
    calls = [c for c in previous["calls"] if keep(c)]
    for st in states:
        st.level = offset
    if not cached:
        return merge_summaries([{"functions": functions, "calls": calls}]), {}, set(), set()
    table = SummaryTable(previous)
    states_by_file = {st.entry.file: st for st in states}
    record = record or {}
    changed = {st.entry.file for st in states
               if st.reads is None or st.key is None or record.get(st.entry.file) != st.key.result}
    # A file's facts depend on the functions entries it reads; the calls entries only
    # change its diagnostics (eval-loop-without-no-grad's every-call-guarded rule).
    # So the functions entries that may change are those of changed files and of the
    # files that read one (and so on: dirty); the calls entries, those of changed files.
    dirty = set(changed)
    views = {st.entry.file: table.view(st.entry.file, st.reads) for st in states
             if st.entry.file not in changed}

    def sources(file):
        """The files whose entries this file reads and which may change (left out
        without reuse)."""
        found = set()
        for k, v in views[file].items():
            function = k.startswith("function ")
            for e in ([v] if function else v):
                f = os.path.normpath(e.get("file") or "/")
                if f != file and f in (dirty if function else changed):
                    found.add(f)
        return found
    grew = True
    while grew:
        grew = False
        for file in views:
            if file not in dirty and any(
                    os.path.normpath(v.get("file") or "/") in dirty
                    for k, v in views[file].items() if k.startswith("function ")):
                dirty.add(file)
                grew = True
    afresh = set(dirty)
    if reuse:
        reads = {}
        for file in dirty:
            if file in views:
                usrs = [k.split(" ", 1)[1] for k in views[file] if k.startswith("function ")]
            else:
                usrs = [c["usr"] for c in calls if os.path.normpath(c.get("file") or "/") == file]
            reads[file] = sorted({os.path.normpath(table.functions[u].get("file") or "/")
                                  for u in usrs if u in table.functions} & dirty - {file})
        afresh = {f for comp in strongly_connected(sorted(dirty), reads) if len(comp) > 1
                  for f in comp}
        todo = list(afresh)
        while todo:
            for f in reads[todo.pop()]:
                if f not in afresh:
                    afresh.add(f)
                    todo.append(f)
    defined = {os.path.normpath(f.get("file") or "/") for f in functions}
    reused = (dirty - afresh) & defined
    functions = [f for f in functions if os.path.normpath(f.get("file") or "/") not in afresh]
    calls = [c for c in calls if os.path.normpath(c.get("file") or "/") not in changed & afresh]
    deferred = {file: states_by_file[file] for file in views if sources(file)}
    # Each deferred file in the round after those it reads (a cycle of them in the
    # same round), at the latest in the middle of the rounds.
    edges = {file: sources(file) for file in deferred}
    level = {f: 0 for f in changed}
    for comp in strongly_connected(sorted(deferred), {f: sorted(d & set(deferred))
                                                      for f, d in edges.items()}):
        members = set(comp)
        lv = 1 + max([level.get(d, 0) for f in comp for d in edges[f] if d not in members] or [0])
        for f in comp:
            level[f] = min(lv, MAX_SUMMARY_ROUNDS // 2)
    seeds = {}
    for file, st in sorted(deferred.items()):
        st.level = level[file] + offset
        seeds[file] = {key: [e for e in kept if os.path.normpath(e.get("file") or "/") == file]
                       for key, kept in (("functions", functions), ("calls", calls))}
        names = sorted(os.path.relpath(d) for d in edges[file])
        log(file, "round %d: deferred to round %d: it reads the summaries of %s, computed again"
                  % (offset, st.level, ", ".join(names[:3]) + (" and %d more" % (len(names) - 3)
                                                             if len(names) > 3 else "")))
    return merge_summaries([{"functions": functions, "calls": calls}]), seeds, reused, afresh


def reuse_conflict(states, reused, afresh, tables):
    """After round 0 of a table that kept previous entries (first_table's reuse):
    the files of a cycle of functions entries read across files (with what each
    file reads now, and where the tables define the functions) that holds a file
    whose previous entries were kept, or a chain from a file that started afresh to
    such a file, as the reason to start again; None when there is none: the rounds
    then reach the table they reach without reuse (the entries of a file on no such
    cycle are determined by those it reads)."""
    defs = {}
    for t in tables:
        for u, f in t.functions.items():
            defs.setdefault(u, set()).add(os.path.normpath(f.get("file") or "/"))
    edges = {}
    for st in states:
        reads = Reads.of(st.export) if st.export is not None else st.reads
        if reads is None:  # no proof
            return "what %s reads is not known" % os.path.relpath(st.entry.file)
        edges[st.entry.file] = sorted({d for u in reads.reads if u not in reads.defines
                                       for d in defs.get(u, ()) if d != st.entry.file})
    for comp in strongly_connected(sorted(edges), edges):
        if len(comp) > 1 and reused & set(comp):
            return "a cycle of calls across %s could keep them alive" % ", ".join(
                sorted(os.path.relpath(f) for f in comp))
    came = {f: None for f in afresh}
    todo = sorted(afresh)
    while todo:
        f = todo.pop()
        for g in edges.get(f, ()):
            if g in came:
                continue
            came[g] = f
            if g in reused:
                chain = [g]
                while came[chain[-1]] is not None:
                    chain.append(came[chain[-1]])
                return "%s, analysed without them, reads those of %s" % (
                    os.path.relpath(chain[-1]), " through ".join(os.path.relpath(f)
                                                                 for f in chain[-2::-1]))
            todo.append(g)
    return None
