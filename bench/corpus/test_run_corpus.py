#!/usr/bin/env python3
"""Self-test of run_corpus.py without the corpus: its comparison of results with the
expectations (unjudged diagnostics, expectations no longer produced, crashes, malformed
expectations), the page it writes, the checkout verification and the compile commands.
Run by test/tools/corpus-self-test.test. Python 3 standard library only."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_corpus  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PROJECTS = {"common_flags": ["-std=c++17"], "projects": [
    {"name": "alice/gan", "commit": COMMIT, "what": "a GAN", "flags": ["-isystem", "/opt/cv"],
     "include_dirs": ["include"], "include_dirs_under": {"tools/": ["{dir}/../inc"]}},
    {"name": "bob/rnn", "commit": COMMIT, "what": "an RNN", "include_dirs": []}]}
FILES = "# comment\nalice/gan src/train.cpp\nalice/gan tools/x/eval.cpp\nbob/rnn main.cpp\n"
EXPECTATIONS = (
    "# verdicts\n"
    "alice/gan src/train.cpp:10:5 torch-missing-zero-grad true-positive \u2014 no zero_grad in the loop\n"
    "alice/gan include/net.h:3:12 torch-missing-epsilon false-positive \u2014 the norm is clamped\n"
    "bob/rnn main.cpp:7:1 torch-load-without-device debatable -- saved and loaded on the CPU\n")


def diag(project, path, line, col, check, message="m"):
    return {"project": project, "path": path, "line": line, "col": col, "check": check, "message": message}


def results(extra=(), drop=(), crashed=False, projects=("alice/gan", "bob/rnn")):
    diags = {"alice/gan": [diag("alice/gan", "src/train.cpp", 10, 5, "torch-missing-zero-grad"),
                           diag("alice/gan", "include/net.h", 3, 12, "torch-missing-epsilon")],
             "bob/rnn": [diag("bob/rnn", "main.cpp", 7, 1, "torch-load-without-device")]}
    out = []
    for name in projects:
        ds = [d for d in diags[name] if (d["path"], d["line"]) not in drop]
        ds += [d for d in extra if d["project"] == name]
        files = [{"path": "main.cpp", "status": "crashed" if crashed and name == "bob/rnn" else "ok",
                  "seconds": 1.0, "pch": True, "cached": False, "first_error": None}]
        out.append({"name": name, "commit": COMMIT, "files": files, "diagnostics": ds,
                    "wall_seconds": 10.0, "cpu_seconds": 19.0,
                    "check_seconds": {"torch-missing-epsilon": 0.25}})
    return {"date": "2026-01-01 00:00 UTC", "tool": {"version": "v", "commit": "c"}, "jobs": 2,
            "load_average": [0.5, 0.7], "cpus": 2, "projects": out}


class Corpus(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="corpus-self-test-")
        self.dir = self.tmp.name
        self.write("projects.json", json.dumps(PROJECTS))
        self.write("files.txt", FILES)
        self.write("expectations.txt", EXPECTATIONS)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
            f.write(text)
        return os.path.join(self.dir, name)

    def corpus(self, command, res=None, expectations=None):
        """Runs run_corpus.py COMMAND over the temporary corpus; returns (status, stdout+stderr)."""
        if res is not None:
            self.write("last-run.json", json.dumps(res))
        if expectations is not None:
            self.write("expectations.txt", expectations)
        args = [command] + ["--%s=%s" % (k, os.path.join(self.dir, v)) for k, v in (
            ("projects", "projects.json"), ("files", "files.txt"), ("expectations", "expectations.txt"),
            ("results", "last-run.json"), ("docs", "precision.md"))]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = run_corpus.main(args)
        return status, out.getvalue()

    # --- comparison -----------------------------------------------------------------------------

    def test_every_diagnostic_judged(self):
        status, out = self.corpus("compare", results())
        self.assertEqual(status, 0, out)
        self.assertIn("3 torch-* diagnostics: 3 judged (1 true-positive, 1 false-positive, 1 debatable), "
                      "0 unjudged; 0 expectations no longer produced", out)

    def test_unjudged_diagnostic_fails(self):
        new = diag("bob/rnn", "main.cpp", 9, 3, "torch-missing-zero-grad", "optimizer step without zero_grad")
        status, out = self.corpus("compare", results(extra=[new]))
        self.assertEqual(status, 1, out)
        self.assertIn("unjudged: bob/rnn main.cpp:9:3 torch-missing-zero-grad: optimizer step without "
                      "zero_grad", out)

    def test_same_place_other_check_is_unjudged(self):
        # An expectation is for one check: another check at the same place is not judged by it.
        other = diag("alice/gan", "src/train.cpp", 10, 5, "torch-optimizer-created-in-loop")
        status, out = self.corpus("compare", results(extra=[other]))
        self.assertEqual(status, 1, out)
        self.assertIn("unjudged: alice/gan src/train.cpp:10:5 torch-optimizer-created-in-loop", out)

    def test_moved_diagnostic_is_unjudged_and_stale(self):
        moved = diag("alice/gan", "src/train.cpp", 11, 5, "torch-missing-zero-grad")
        status, out = self.corpus("compare", results(extra=[moved], drop=[("src/train.cpp", 10)]))
        self.assertEqual(status, 1, out)
        self.assertIn("unjudged: alice/gan src/train.cpp:11:5", out)
        self.assertIn("no longer produced (expectations.txt:2): alice/gan src/train.cpp:10:5 "
                      "torch-missing-zero-grad true-positive", out)

    def test_expectation_no_longer_produced_fails(self):
        status, out = self.corpus("compare", results(drop=[("include/net.h", 3)]))
        self.assertEqual(status, 1, out)
        self.assertIn("no longer produced (expectations.txt:3): alice/gan include/net.h:3:12 "
                      "torch-missing-epsilon false-positive", out)
        self.assertNotIn("unjudged:", out)

    def test_projects_not_run_are_not_stale(self):
        status, out = self.corpus("compare", results(projects=("alice/gan",)))
        self.assertEqual(status, 0, out)

    def test_two_messages_at_one_place_are_judged_once(self):
        twin = diag("alice/gan", "src/train.cpp", 10, 5, "torch-missing-zero-grad", "another message")
        status, out = self.corpus("compare", results(extra=[twin]))
        self.assertEqual(status, 0, out)
        self.assertIn("3 torch-* diagnostics", out)

    def test_crash_fails(self):
        status, out = self.corpus("compare", results(crashed=True))
        self.assertEqual(status, 1, out)
        self.assertIn("crashed: bob/rnn main.cpp", out)

    def test_malformed_expectations_are_bad_input(self):
        for text, why in (
                ("alice/gan src/train.cpp:10:5 torch-missing-zero-grad true-positive\n", "expected '<project>"),
                ("alice/gan src/train.cpp:10 torch-missing-zero-grad true-positive \u2014 x\n", "expected"),
                ("alice/gan src/train.cpp:10:5 torch-missing-zero-grad probably \u2014 x\n",
                 "verdict 'probably' is not one of true-positive, false-positive, debatable"),
                (EXPECTATIONS + "bob/rnn main.cpp:7:1 torch-load-without-device true-positive \u2014 again\n",
                 "expectations.txt:5: the same diagnostic is judged on line 4 already")):
            status, out = self.corpus("compare", results(), expectations=text)
            self.assertEqual(status, 2, out)
            self.assertIn(why, out)

    def test_files_list_errors(self):
        self.write("files.txt", "carol/x main.cpp\n")
        status, out = self.corpus("docs", results())
        self.assertEqual(status, 2, out)
        self.assertIn("files.txt:1: unknown project 'carol/x'", out)
        self.write("files.txt", "bob/rnn main.cpp\nbob/rnn main.cpp\n")
        status, out = self.corpus("docs", results())
        self.assertEqual(status, 2, out)
        self.assertIn("files.txt:2: bob/rnn main.cpp listed twice", out)

    # --- the page -----------------------------------------------------------------------------

    def test_docs_table_counts_verdicts(self):
        unjudged = diag("bob/rnn", "main.cpp", 9, 3, "torch-missing-zero-grad")
        status, out = self.corpus("docs", results(extra=[unjudged]))
        self.assertEqual(status, 0, out)
        with open(os.path.join(self.dir, "precision.md"), encoding="utf-8") as f:
            page = f.read()
        # check | diagnostics | TP | FP | debatable | unjudged | files | time
        self.assertIn("| torch-missing-zero-grad | 2 | 1 | 0 | 0 | 1 | 2 | n/a |", page)
        self.assertIn("| torch-missing-epsilon | 1 | 0 | 1 | 0 | 0 | 1 | 0.50 s |", page)
        self.assertIn("| torch-load-without-device | 1 | 0 | 0 | 1 | 0 | 1 | n/a |", page)
        self.assertIn("| all | 4 | 1 | 1 | 1 | 1 | 3 | 0.50 s |", page)
        self.assertIn("| [alice/gan](https://github.com/alice/gan) | `0123456789ab` | 2 | a GAN |", page)
        self.assertIn("- bob/rnn `main.cpp:9:3` **unjudged**: m", page)
        self.assertIn("- alice/gan `include/net.h:3:12` **false-positive**: the norm is clamped", page)
        self.assertIn("run_corpus.py checkout --src ~/corpus", page)

    # --- checkouts and compile commands ---------------------------------------------------------

    def test_verify_checkout(self):
        src = os.path.join(self.dir, "src")
        repo = os.path.join(src, "bob+rnn")
        os.makedirs(repo)
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")

        def git(*a):
            return subprocess.run(["git"] + list(a), cwd=repo, env=env, check=True,
                                  stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
        git("init", "-q")
        with open(os.path.join(repo, "main.cpp"), "w") as f:
            f.write("int main() {}\n")
        git("add", "main.cpp")
        git("commit", "-q", "-m", "x")
        head = git("rev-parse", "HEAD")
        project = {"name": "bob/rnn", "commit": head}
        self.assertEqual(run_corpus.verify_checkout(src, project, ["main.cpp"]), [])
        self.assertIn("is at %s, not the pinned %s" % (head, COMMIT),
                      run_corpus.verify_checkout(src, dict(project, commit=COMMIT), ["main.cpp"])[0])
        self.assertIn("other.cpp is missing", run_corpus.verify_checkout(src, project, ["other.cpp"])[0])
        with open(os.path.join(repo, "main.cpp"), "a") as f:
            f.write("// edited\n")
        self.assertIn("main.cpp differs from the pinned commit",
                      run_corpus.verify_checkout(src, project, ["main.cpp"])[0])
        self.assertIn("no checkout at", run_corpus.verify_checkout(src, {"name": "alice/gan",
                                                                         "commit": COMMIT}, [])[0])

    def test_compile_command(self):
        p = PROJECTS["projects"][0]
        cmd = run_corpus.compile_command(["-std=c++17"], p, "/co", "tools/x/eval.cpp")
        self.assertEqual(cmd["arguments"], ["clang++", "-std=c++17", "-isystem", "/opt/cv", "-I", "/co/include",
                                            "-I", "/co/tools/inc", "-c", "/co/tools/x/eval.cpp"])
        self.assertEqual(cmd["directory"], "/co")
        cmd = run_corpus.compile_command(["-std=c++17"], p, "/co", "src/train.cpp")
        self.assertNotIn("/co/tools/inc", cmd["arguments"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
