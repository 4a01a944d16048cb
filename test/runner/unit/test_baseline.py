import json
import os

from runner_unit import TempDirTest, captured_stderr, namespace

from torch_tidy_runner import baseline
from torch_tidy_runner.common import InputError


def diag(file, line, message="m", check="torch-x"):
    return {"file": file, "line": line, "column": 1, "level": "warning", "check": check,
            "message": message, "notes": [], "snippet": []}


class BaselineTest(TempDirTest):
    def test_fingerprints_ignore_line_numbers_and_count_twins(self):
        a = self.write("a.cpp", "int x = f();\nint x = f();\n")
        d = [diag(a, 1), diag(a, 2)]
        baseline.fingerprint_findings(d, self.tmp)
        self.assertEqual(d[0]["fingerprint"][:-2], d[1]["fingerprint"][:-2])
        self.assertEqual([x["fingerprint"][-2:] for x in d], [":1", ":2"])
        self.assertEqual(d[0]["_baseline"], {"fingerprint": d[0]["fingerprint"], "file": "a.cpp",
                                             "check": "torch-x", "message": "m", "code": "int x = f();"})
        self.write("a.cpp", "\n\nint   x = f();\n")  # moved, whitespace changed: the same finding
        moved = [diag(a, 3)]
        baseline.fingerprint_findings(moved, self.tmp)
        self.assertEqual(moved[0]["fingerprint"], d[0]["fingerprint"])

    def test_baseline_text_is_sorted_and_read_back(self):
        findings = [{"fingerprint": "b:1", "file": "b.cpp", "check": "c", "message": "m", "code": ""},
                    {"fingerprint": "a:2", "file": "a.cpp", "check": "c", "message": "m", "code": ""},
                    {"fingerprint": "a:1", "file": "a.cpp", "check": "c", "message": "m", "code": ""}]
        text = baseline.baseline_text(findings)
        self.assertEqual([x["fingerprint"] for x in json.loads(text)["findings"]], ["a:1", "a:2", "b:1"])
        self.assertEqual(baseline.read_baseline(self.write("b.json", text))[0]["fingerprint"], "a:1")
        with self.assertRaises(InputError):
            baseline.read_baseline(self.write("c.json", '{"version": 9, "findings": []}'))

    def test_adopt_hides_known_and_outside_diff(self):
        a = self.write("a.cpp", "one\ntwo\nthree\n")
        diags = [diag(a, 1, "first"), diag(a, 2, "second"), diag(a, 3, "third")]
        known = [dict(diags[0])]
        baseline.fingerprint_findings(known, self.tmp)
        args = namespace(source_root=self.tmp, baseline="b.json", update_baseline=False,
                         baseline_entries=[known[0]["_baseline"]],
                         diff_lines={os.path.realpath(a): {1, 2}}, database_files={a})
        results = [namespace(entry=namespace(file=a), status="ok", unknown_flags=[])]
        kept, info = baseline.adopt_findings(args, diags, results)
        self.assertEqual([d["message"] for d in kept], ["second"])
        self.assertEqual((info.hidden_baseline, info.outside_diff, info.stale), (1, 1, 0))
        self.assertEqual(info.summary(), ", 1 hidden by the baseline, 1 outside the changed lines")

    def test_record_keeps_entries_of_files_not_analysed(self):
        a = self.write("a.cpp", "x\n")
        d = [diag(a, 1)]
        baseline.fingerprint_findings(d, self.tmp)
        path = os.path.join(self.tmp, "base.json")
        old = [{"fingerprint": "zz:1", "file": "other.cpp", "check": "c", "message": "m", "code": ""}]
        args = namespace(baseline=path, database_files={a, os.path.join(self.tmp, "other.cpp")})
        results = [namespace(entry=namespace(file=a))]
        with captured_stderr() as err:
            new = baseline.record_baseline(args, d, results, self.tmp, old)
        self.assertEqual(sorted(x["fingerprint"] for x in new), sorted([d[0]["fingerprint"], "zz:1"]))
        self.assertIn("recorded 2 findings in %s (1 new, 0 no longer found)" % path, err.getvalue())

    def test_source_relative(self):
        self.assertEqual(baseline.source_relative(os.path.join(self.tmp, "x", "a.cpp"), self.tmp), "x/a.cpp")
        self.assertEqual(baseline.source_relative("/elsewhere/a.cpp", self.tmp), "/elsewhere/a.cpp")
        self.assertEqual(baseline.source_relative(None, self.tmp), "")
