#!/usr/bin/env python3
"""run_corpus.py: torch-tidy over the false-positive corpus, every diagnostic judged.

The corpus is a set of public LibTorch projects pinned to commits
(projects.json) and the translation units analysed in each (files.txt).
Nothing of them is kept in this repository: fetch the checkouts first, then
run the checks over them and compare what they report with expectations.txt,
where every diagnostic is judged true-positive, false-positive or debatable,
with one line why.

  run_corpus.py checkout --src DIR     clone each project into DIR/<owner>+<name>
                                       at its pinned commit (git, from GitHub or
                                       --url)
  run_corpus.py run --src DIR          verify the checkouts, write a compilation
                                       database per project, run run-torch-tidy
                                       (precompiled header and result cache on),
                                       save the results (last-run.json), compare
                                       them with expectations.txt and write
                                       docs/precision.md
  run_corpus.py compare [--results F]  compare saved results with the expectations
  run_corpus.py docs [--results F]     write docs/precision.md from saved results

Exit status: 0 every diagnostic judged and every expectation still produced;
1 a diagnostic no expectation judges, an expectation no longer produced, or
torch-tidy crashed on a file; 2 bad input (a missing or moved checkout, a
malformed expectation, no run-torch-tidy, ...).

Python 3 standard library only.
"""

import argparse
import collections
import datetime
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PROG = "run_corpus.py"
VERDICTS = ("true-positive", "false-positive", "debatable")
EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2
# "<project> <path>:<line>:<col> <check> <verdict> — <why>" (an ASCII " -- " also separates).
EXPECTATION_RE = re.compile(
    r"^(?P<project>\S+)\s+(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+)\s+(?P<check>\S+)\s+"
    r"(?P<verdict>\S+)\s+(?:\u2014|--)\s+(?P<why>\S.*)$")


class InputError(Exception):
    """Bad input: one line on stderr, exit status 2."""


# --- The corpus description ------------------------------------------------------

def load_projects(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("%s: %s" % (path, e))
    projects = collections.OrderedDict()
    for p in data.get("projects", []):
        for key in ("name", "commit"):
            if not isinstance(p.get(key), str) or not p[key]:
                raise InputError("%s: a project without '%s'" % (path, key))
        if not re.fullmatch(r"[0-9a-f]{40}", p["commit"]):
            raise InputError("%s: %s: commit '%s' is not a full SHA-1" % (path, p["name"], p["commit"]))
        if p["name"] in projects:
            raise InputError("%s: project %s listed twice" % (path, p["name"]))
        if "repo" in p and (not isinstance(p["repo"], str) or
                            not re.fullmatch(r"[^/\s]+/[^/\s]+", p["repo"])):
            raise InputError("%s: %s: 'repo' is not owner/name" % (path, p["name"]))
        projects[p["name"]] = p
    if not projects:
        raise InputError("%s: no projects" % path)
    return data.get("common_flags", []), projects


def load_files(path, projects):
    """files.txt: '<project> <path>' per line; returns {project: [paths]}."""
    files = collections.OrderedDict((name, []) for name in projects)
    seen = set()
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise InputError("%s:%d: expected '<project> <path>'" % (path, n))
        project, rel = parts
        if project not in projects:
            raise InputError("%s:%d: unknown project '%s' (not in projects.json)" % (path, n, project))
        if (project, rel) in seen:
            raise InputError("%s:%d: %s %s listed twice" % (path, n, project, rel))
        seen.add((project, rel))
        files[project].append(rel)
    return files


Expectation = collections.namedtuple("Expectation", "project path line col check verdict why lineno")


def load_expectations(path):
    out = []
    keys = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return out
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = EXPECTATION_RE.match(s)
        if not m:
            raise InputError("%s:%d: expected '<project> <path>:<line>:<col> <check> <verdict> \u2014 <why>'"
                             % (path, n))
        if m.group("verdict") not in VERDICTS:
            raise InputError("%s:%d: verdict '%s' is not one of %s"
                             % (path, n, m.group("verdict"), ", ".join(VERDICTS)))
        e = Expectation(m.group("project"), m.group("path"), int(m.group("line")), int(m.group("col")),
                        m.group("check"), m.group("verdict"), m.group("why").strip(), n)
        key = e[:5]
        if key in keys:
            raise InputError("%s:%d: the same diagnostic is judged on line %d already" % (path, n, keys[key]))
        keys[key] = n
        out.append(e)
    return out


def checkout_dir(src, name):
    return os.path.join(src, name.replace("/", "+"))


# --- Checkouts ---------------------------------------------------------------------

def git(args, cwd=None, check=True):
    r = subprocess.run(["git"] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if check and r.returncode != 0:
        raise InputError("git %s: %s" % (" ".join(args), r.stderr.strip().splitlines()[-1:] or r.returncode))
    return r


def verify_checkout(src, project, rels):
    """Problems with a project's checkout: missing, another commit, listed files missing or edited."""
    d = checkout_dir(src, project["name"])
    if not os.path.isdir(d):
        return ["%s: no checkout at %s (run '%s checkout --src %s')" % (project["name"], d, PROG, src)]
    r = git(["rev-parse", "HEAD"], cwd=d, check=False)
    if r.returncode != 0:
        return ["%s: %s is not a git work tree" % (project["name"], d)]
    head = r.stdout.strip()
    if head != project["commit"]:
        return ["%s: %s is at %s, not the pinned %s" % (project["name"], d, head, project["commit"])]
    problems = ["%s: %s is missing from the checkout" % (project["name"], rel)
                for rel in rels if not os.path.isfile(os.path.join(d, rel))]
    if not problems and rels:
        r = git(["status", "--porcelain", "--"] + rels, cwd=d, check=False)
        problems += ["%s: %s differs from the pinned commit" % (project["name"], l[3:])
                     for l in r.stdout.splitlines() if l.strip()]
    return problems


def cmd_checkout(args):
    _, projects = load_projects(args.projects)
    os.makedirs(args.src, exist_ok=True)
    for name, p in projects.items():
        if args.only and name not in args.only:
            continue
        d = checkout_dir(args.src, name)
        if not os.path.isdir(d):
            # A project pinned twice (another commit of a repository already in
            # the corpus) names its repository in "repo"; its checkout is its own.
            repo = p.get("repo", name)
            url = args.url.format(name=repo, owner=repo.split("/")[0], repo=repo.split("/")[1],
                                  dirname=repo.replace("/", "+"))
            print("%s: cloning %s" % (name, url), flush=True)
            git(["clone", "--quiet", "--no-checkout", url, d])
        git(["checkout", "--quiet", "--detach", p["commit"]], cwd=d)
        print("%s: %s at %s" % (name, d, p["commit"]), flush=True)
    return EXIT_OK


# --- Compilation databases -------------------------------------------------------------

def include_dirs(project, rel):
    """The project's include directories for one file, relative to the checkout: the
    project-wide ones, then those of every include_dirs_under prefix of the file's path
    ('{dir}' is the file's own directory)."""
    dirs = list(project.get("include_dirs", []))
    for prefix, extra in project.get("include_dirs_under", {}).items():
        if rel.startswith(prefix):
            dirs += [x.replace("{dir}", os.path.dirname(rel)) for x in extra]
    return dirs


def compile_command(common_flags, project, checkout, rel):
    args = ["clang++"] + list(common_flags) + list(project.get("flags", []))
    for d in include_dirs(project, rel):
        args += ["-I", os.path.normpath(os.path.join(checkout, d))]
    path = os.path.join(checkout, rel)
    return {"directory": checkout, "file": path, "arguments": args + ["-c", path]}


def write_database(common_flags, project, checkout, rels, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    db = [compile_command(common_flags, project, checkout, rel) for rel in rels]
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(db, f, indent=1)
    return out_dir


# --- Running the checks -------------------------------------------------------------------

def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def check_profile_times(profile_dir):
    """Seconds per check from clang-tidy's --store-check-profile files."""
    times = collections.Counter()
    if not os.path.isdir(profile_dir):
        return times
    for name in os.listdir(profile_dir):
        try:
            with open(os.path.join(profile_dir, name), encoding="utf-8") as f:
                prof = json.load(f).get("profile", {})
        except (OSError, ValueError):
            continue
        for key, value in prof.items():
            m = re.fullmatch(r"time\.clang-tidy\.(.+)\.(user|sys)", key)
            if m:
                times[m.group(1)] += float(value)
    return times


def run_project(args, common_flags, project, rels):
    name = project["name"]
    checkout = os.path.realpath(checkout_dir(args.src, name))
    work = os.path.join(os.path.abspath(args.work), name.replace("/", "+"))
    db_dir = write_database(common_flags, project, checkout, rels, work)
    report = os.path.join(work, "report.json")
    # A fixed directory: the result cache keys on torch-tidy's arguments, this one among them.
    profile_dir = os.path.join(work, "check-profile")
    shutil.rmtree(profile_dir, ignore_errors=True)
    os.makedirs(profile_dir)
    cmd = [sys.executable, args.run_torch_tidy, "-p", db_dir, "-j", str(args.jobs),
           "--checks=-*,torch-*", "--header-filter=^" + re.escape(checkout + os.sep),
           "--format=json", "-o", report, "--source-root", checkout,
           "--pch-dir", os.path.join(os.path.abspath(args.work), "pch"), "--progress=lines",
           "--tidy-arg=--enable-check-profile", "--tidy-arg=--store-check-profile=" + profile_dir]
    if args.cache_dir:
        cmd.append("--cache-dir=" + args.cache_dir)
    if args.no_cache:
        cmd.append("--no-cache")
    print("%s: %d files: %s" % (name, len(rels), " ".join(shlex.quote(c) for c in cmd)), flush=True)
    cpu0, wall0 = children_cpu(), time.monotonic()
    r = subprocess.run(cmd)
    wall, cpu = time.monotonic() - wall0, children_cpu() - cpu0
    profile = check_profile_times(profile_dir)
    if r.returncode not in (0, 1, 3) or not os.path.isfile(report):
        raise InputError("%s: run-torch-tidy exited with status %d" % (name, r.returncode))
    with open(report, encoding="utf-8") as f:
        rep = json.load(f)
    files = []
    by_file = collections.defaultdict(list)
    for d in rep["diagnostics"]:
        by_file[d["file"]].append(d)
    for fr in rep["files"]:
        errors = [d["message"] for d in by_file.get(fr["file"], []) if d["level"] in ("error", "fatal error")]
        files.append({"path": fr["file"], "status": fr["status"], "seconds": fr["seconds"],
                      "pch": fr["pch"], "cached": fr["cached"],
                      "first_error": errors[0] if errors else None})
    diags = []
    for d in rep["diagnostics"]:
        if not (d["check"] or "").startswith("torch-"):
            continue
        diags.append({"project": name, "path": d["file"], "line": d["line"], "col": d["column"],
                      "check": d["check"], "message": d["message"]})
    return {"name": name, "commit": project["commit"], "files": files, "diagnostics": diags,
            "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
            "check_seconds": {k: round(v, 2) for k, v in sorted(profile.items())}}


def tool_description(run_torch_tidy):
    r = subprocess.run([sys.executable, run_torch_tidy, "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    commit = git(["rev-parse", "--short", "HEAD"], cwd=REPO, check=False).stdout.strip()
    dirty = git(["status", "--porcelain", "--untracked-files=no"], cwd=REPO, check=False).stdout.strip()
    return {"version": r.stdout.strip(), "commit": commit + ("+local changes" if dirty else "")}


def cmd_run(args):
    common_flags, projects = load_projects(args.projects)
    files = load_files(args.files, projects)
    expectations = load_expectations(args.expectations)  # malformed ones fail before the long run
    selected = [n for n in projects if not args.only or n in args.only]
    unknown = [n for n in (args.only or []) if n not in projects]
    if unknown:
        raise InputError("unknown project %s" % ", ".join(unknown))
    problems = []
    for n in selected:
        problems += verify_checkout(args.src, projects[n], files[n])
    if problems:
        raise InputError("checkouts do not match the pinned corpus:\n  " + "\n  ".join(problems))
    if not os.path.isfile(args.run_torch_tidy):
        raise InputError("no run-torch-tidy at %s (build torch-tidy first, or pass --run-torch-tidy)"
                         % args.run_torch_tidy)
    previous = load_results(args.results) if args.only and os.path.isfile(args.results) else None
    tool = tool_description(args.run_torch_tidy)  # before the run: the commit that was analysed with
    load0 = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    runs = collections.OrderedDict()
    for n in selected:
        if files[n]:
            runs[n] = run_project(args, common_flags, projects[n], files[n])
    results = {"date": started.strftime("%Y-%m-%d %H:%M UTC"),
               "tool": tool, "jobs": args.jobs,
               "load_average": [round(load0, 1), round(os.getloadavg()[0], 1)],
               "cpus": os.cpu_count(), "projects": list(runs.values())}
    results["common_flags"] = common_flags
    if previous:  # --only: keep the other projects' last results
        before = {p["name"]: p for p in previous.get("projects", [])}
        results["projects"] = [runs[n] if n in runs else before[n] for n in projects
                               if n in runs or n in before]
        results["partial"] = sorted(runs)
    with open(args.results, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    status = report_comparison(results, expectations, projects, files)
    if not args.no_docs:
        write_docs(args.docs, results, expectations, projects, files, args)
    return status


# --- Comparison ------------------------------------------------------------------------

def load_results(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("%s: %s" % (path, e))


def compare(results, expectations):
    """(judged, unjudged, stale): judged pairs (diagnostic, expectation), diagnostics no
    expectation judges, expectations of analysed projects that no diagnostic matches."""
    analysed = {p["name"] for p in results["projects"]}
    index = {e[:5]: e for e in expectations}
    judged, unjudged, used = [], [], set()
    seen = set()
    for p in results["projects"]:
        for d in p["diagnostics"]:
            key = (d["project"], d["path"], d["line"], d["col"], d["check"])
            if key in seen:  # two messages of one check at one place are judged once
                continue
            seen.add(key)
            e = index.get(key)
            if e is None:
                unjudged.append(d)
            else:
                judged.append((d, e))
                used.add(key)
    stale = [e for e in expectations if e.project in analysed and e[:5] not in used]
    return judged, unjudged, stale


def crashes(results):
    return [(p["name"], f["path"]) for p in results["projects"] for f in p["files"]
            if f["status"] in ("crashed", "failed")]


def report_comparison(results, expectations, projects=None, files=None):
    judged, unjudged, stale = compare(results, expectations)
    counts = collections.Counter(e.verdict for _, e in judged)
    print("%s: %d torch-* diagnostics: %d judged (%s), %d unjudged; %d expectations no longer produced"
          % (PROG, len(judged) + len(unjudged), len(judged),
             ", ".join("%d %s" % (counts[v], v) for v in VERDICTS), len(unjudged), len(stale)))
    for d in unjudged:
        print("unjudged: %s %s:%d:%d %s: %s" % (d["project"], d["path"], d["line"], d["col"],
                                                d["check"], d["message"]))
    for e in stale:
        print("no longer produced (expectations.txt:%d): %s %s:%d:%d %s %s"
              % (e.lineno, e.project, e.path, e.line, e.col, e.check, e.verdict))
    crashed = crashes(results)
    for name, path in crashed:
        print("crashed: %s %s" % (name, path))
    return EXIT_MISMATCH if unjudged or stale or crashed else EXIT_OK


def cmd_compare(args):
    return report_comparison(load_results(args.results), load_expectations(args.expectations))


# --- docs/precision.md ------------------------------------------------------------------------

def fmt_seconds(s):
    s = int(round(s))
    return "%d min %02d s" % (s // 60, s % 60) if s >= 60 else "%d s" % s


def all_checks():
    """Every torch-* check with a page in docs/checks/ (so a silent check still gets a row)."""
    d = os.path.join(REPO, "docs", "checks")
    return sorted(f[:-3] for f in os.listdir(d) if f.startswith("torch-") and f.endswith(".md")) \
        if os.path.isdir(d) else []


def write_docs(path, results, expectations, projects, files, args):
    judged, unjudged, stale = compare(results, expectations)
    runs = {p["name"]: p for p in results["projects"]}
    checks = sorted(set(all_checks()) | {d["check"] for p in results["projects"] for d in p["diagnostics"]})
    per = {c: collections.Counter() for c in checks}
    files_with = {c: set() for c in checks}
    for d, e in judged:
        per[d["check"]][e.verdict] += 1
    for d in unjudged:
        per[d["check"]]["unjudged"] += 1
    for p in results["projects"]:
        for d in p["diagnostics"]:
            files_with[d["check"]].add((d["project"], d["path"]))
    check_seconds = collections.Counter()
    for p in results["projects"]:
        check_seconds.update(p.get("check_seconds", {}))
    all_files = [(p["name"], f) for p in results["projects"] for f in p["files"]]
    analysed_fresh = sum(1 for _, f in all_files if not f["cached"])
    not_parsed = [(n, f) for n, f in all_files if f["status"] == "compile-error"]
    crashed = crashes(results)
    wall = sum(p["wall_seconds"] for p in results["projects"])
    cpu = sum(p["cpu_seconds"] for p in results["projects"])
    rel_script = os.path.relpath(os.path.join(HERE, "run_corpus.py"), REPO)

    out = []

    def w(text, raw=False):
        """A paragraph is wrapped at 100 columns; table rows, list items and code are not."""
        if raw or text[:1] in ("|", "#", "-", "<", " ") or text.startswith("```") or len(text) <= 100:
            out.append(text)
        else:
            out.append(textwrap.fill(text, 100, break_long_words=False, break_on_hyphens=False))
    w("# Precision: torch-tidy on public LibTorch code")
    w("")
    w("<!-- Generated by %s from its last run (bench/corpus/last-run.json); edit the prose in"
      % rel_script)
    w("     bench/corpus/precision-notes.md and the verdicts in bench/corpus/expectations.txt. -->")
    w("")
    w("The bar: on correct real-world LibTorch code the checks are silent (precision first: every false "
      "positive found becomes a negative test). It is measured on a corpus of public LibTorch projects "
      "pinned to commits (`bench/corpus/projects.json`), a fixed list of %d translation units "
      "(`bench/corpus/files.txt`: training, validation and test loops, losses, models) and a verdict "
      "with one line why for every diagnostic the checks report on them "
      "(`bench/corpus/expectations.txt`: true-positive, false-positive or debatable, judged against "
      "each check's page in `docs/checks/`). Nothing from the projects is committed: only their "
      "names, commits, paths, line numbers and the verdicts." % sum(len(v) for v in files.values()))
    w("")
    w("## Reproduce")
    w("")
    w("After building torch-tidy (`build/bin/run-torch-tidy`), with git and the Debian packages the "
      "projects include (`libopencv-dev libboost-program-options-dev libpng++-dev nlohmann-json3-dev "
      "libgflags-dev libcxxopts-dev`):")
    w("")
    w("```sh")
    w("%s checkout --src ~/corpus   # clone the %d projects at their pinned commits"
      % (rel_script, len(projects)), raw=True)
    w("%s run --src ~/corpus        # analyse (-j 2), compare with the expectations, rewrite this page"
      % rel_script, raw=True)
    w("```")
    w("")
    w("`run` verifies each checkout's commit, writes one compilation database per project "
      "(`%s`, the project's include directories, `-isystem /usr/include/opencv4` where it uses "
      "OpenCV), runs `run-torch-tidy` with `--checks=-*,torch-*`, a header filter for the checkout "
      "(project headers are analysed through the files that include them), its precompiled header and "
      "its result cache, and exits non-zero when a diagnostic is not judged, a judged one is no "
      "longer produced, or torch-tidy crashed. `--only NAME` runs one project and keeps the others' "
      "last results; `compare` and `docs` work from `bench/corpus/last-run.json` without running "
      "anything." % " ".join(results.get("common_flags", [])
                             or ["-std=c++17", "-isystem", "/usr/include/torch/csrc/api/include"]))
    w("")
    w("## The corpus")
    w("")
    w("| project | commit | files | what |")
    w("| --- | --- | --- | --- |")
    for n, p in projects.items():
        w("| [%s](https://github.com/%s) | `%s` | %d | %s |" % (n, p.get("repo", n), p["commit"][:12], len(files[n]),
                                                          p.get("what", "")))
    w("")
    w("## Last run")
    w("")
    tool = results.get("tool", {})
    la = results.get("load_average", [])
    w("%s, torch-tidy %s (`%s`), `-j %s` on a %s-CPU machine (load average %s at the start, %s at "
      "the end). %d files, %d analysed in this run and %d replayed from the result cache; "
      "%s wall and %s CPU (user + sys of every process)%s."
      % (results.get("date", "?"), tool.get("commit", "?"), tool.get("version", "?"),
         results.get("jobs", "?"), results.get("cpus", "?"), la[0] if la else "?",
         la[1] if len(la) > 1 else "?", len(all_files), analysed_fresh, len(all_files) - analysed_fresh,
         fmt_seconds(wall), fmt_seconds(cpu),
         "; this run covered only %s, the other projects' results are from earlier runs"
         % ", ".join(results["partial"]) if results.get("partial") else ""))
    w("")
    w("| check | diagnostics | true positives | false positives | debatable | unjudged | files | time |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- |")
    tot = collections.Counter()
    for c in checks:
        k = per[c]
        n = sum(k.values())
        tot.update(k)
        t = check_seconds.get(c)
        w("| %s | %d | %d | %d | %d | %d | %d | %s |"
          % (c, n, k["true-positive"], k["false-positive"], k["debatable"], k["unjudged"],
             len(files_with[c]), "%.2f s" % t if t is not None else "n/a"))
    w("| all | %d | %d | %d | %d | %d | %d | %s |"
      % (sum(tot.values()), tot["true-positive"], tot["false-positive"], tot["debatable"],
         tot["unjudged"], len(set().union(*files_with.values())) if files_with else 0,
         "%.2f s" % sum(check_seconds.values()) if check_seconds else "n/a"))
    w("")
    w("*files*: files with at least one diagnostic of the check. *time*: CPU seconds the check's "
      "matchers and callbacks took (clang-tidy's check profile) over the %d files analysed in this "
      "run; files replayed from the cache add nothing." % analysed_fresh)
    w("")
    w("Crashes: %s. Files that did not parse (a compiler error; the checks still ran on what "
      "clang could build): %s."
      % ("none" if not crashed else ", ".join("%s `%s`" % c for c in crashed),
         "none" if not not_parsed else "%d" % len(not_parsed)))
    if not_parsed:
        w("")
        for n, f in not_parsed:
            w("- %s `%s`: %s" % (n, f["path"], f["first_error"] or "compiler error"))
    w("")
    w("Per project:")
    w("")
    w("| project | files | diagnostics | PCH | cached | wall | CPU |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for p in results["projects"]:
        w("| %s | %d | %d | %d | %d | %s | %s |"
          % (p["name"], len(p["files"]), len(p["diagnostics"]), sum(1 for f in p["files"] if f["pch"]),
             sum(1 for f in p["files"] if f["cached"]), fmt_seconds(p["wall_seconds"]),
             fmt_seconds(p["cpu_seconds"])))
    w("")
    w("## Every diagnostic, judged")
    w("")
    if not judged and not unjudged:
        w("The checks reported nothing.")
    rows = sorted([(d["check"], d["project"], d["path"], d["line"], d["col"], e.verdict, e.why)
                   for d, e in judged] +
                  [(d["check"], d["project"], d["path"], d["line"], d["col"], "unjudged", d["message"])
                   for d in unjudged])
    current = None
    for check, project, p, line, col, verdict, why in rows:
        if check != current:
            if current is not None:
                w("")
            w("### %s" % check)
            w("")
            current = check
        w("- %s `%s:%d:%d` **%s**: %s" % (project, p, line, col, verdict, why))
    if stale:
        w("")
        w("Expectations no longer produced in this run: %d (see `%s compare`)." % (len(stale), rel_script))
    notes = os.path.join(HERE, "precision-notes.md")
    if os.path.isfile(notes):
        with open(notes, encoding="utf-8") as f:
            w("")
            w(f.read().rstrip("\n"))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print("%s: wrote %s" % (PROG, os.path.relpath(path)))


def cmd_docs(args):
    common_flags, projects = load_projects(args.projects)
    files = load_files(args.files, projects)
    results = load_results(args.results)
    results.setdefault("common_flags", common_flags)
    write_docs(args.docs, results, load_expectations(args.expectations), projects, files, args)
    return EXIT_OK


# --- Command line ---------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="command", required=True)

    def corpus_args(sp):
        sp.add_argument("--projects", default=os.path.join(HERE, "projects.json"))
        sp.add_argument("--files", default=os.path.join(HERE, "files.txt"))
        sp.add_argument("--expectations", default=os.path.join(HERE, "expectations.txt"))
        sp.add_argument("--results", default=os.path.join(HERE, "last-run.json"),
                        help="results of the last run (written by run, read by compare and docs)")
        sp.add_argument("--docs", default=os.path.join(REPO, "docs", "precision.md"),
                        help="the page to write (default: docs/precision.md)")

    c = sub.add_parser("checkout", help="clone the projects at their pinned commits")
    corpus_args(c)
    c.add_argument("--src", required=True, help="directory of the checkouts (<owner>+<name> each)")
    c.add_argument("--url", default="https://github.com/{name}.git",
                   help="where to clone from; {name}, {owner}, {repo}, {dirname} are replaced "
                        "(default: %(default)s)")
    c.add_argument("--only", action="append", metavar="NAME", help="only this project (repeatable)")

    r = sub.add_parser("run", help="analyse the corpus and compare with the expectations")
    corpus_args(r)
    r.add_argument("--src", required=True, help="directory of the checkouts (<owner>+<name> each)")
    r.add_argument("--build", default=os.path.join(REPO, "build"), help="torch-tidy's build directory")
    r.add_argument("--run-torch-tidy", help="default: BUILD/bin/run-torch-tidy")
    r.add_argument("--work", help="compilation databases, reports and kept PCHs (default: BUILD/corpus)")
    r.add_argument("-j", dest="jobs", type=int, default=2, help="parallel torch-tidy runs (default: 2)")
    r.add_argument("--only", action="append", metavar="NAME", help="only this project (repeatable)")
    r.add_argument("--cache-dir", help="run-torch-tidy's result cache (default: its own default)")
    r.add_argument("--no-cache", action="store_true", help="analyse every file again")
    r.add_argument("--no-docs", action="store_true", help="do not rewrite docs/precision.md")

    m = sub.add_parser("compare", help="compare saved results with the expectations")
    corpus_args(m)
    d = sub.add_parser("docs", help="write docs/precision.md from saved results")
    corpus_args(d)
    args = p.parse_args(argv)
    if args.command == "run":
        args.run_torch_tidy = args.run_torch_tidy or os.path.join(args.build, "bin", "run-torch-tidy")
        args.work = args.work or os.path.join(args.build, "corpus")
        if args.jobs < 1:
            p.error("-j must be at least 1")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return {"checkout": cmd_checkout, "run": cmd_run, "compare": cmd_compare,
                "docs": cmd_docs}[args.command](args)
    except InputError as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, e))
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
