import json
import os

from runner_unit import TempDirTest

from torch_tidy_runner import codechecker
from torch_tidy_runner.common import InputError


class CodeCheckerLabelsTest(TempDirTest):
    def fake_tidy(self, checks):
        path = self.write("torch-tidy", "#!/bin/sh\nprintf 'Enabled checks:\\n%s\\n'\n"
                          % "\\n".join("    " + c for c in checks))
        os.chmod(path, 0o755)
        return path

    def labels_dir(self, labels):
        self.write("labels/analyzers/clang-tidy.json",
                   json.dumps({"analyzer": "clang-tidy", "labels": labels}))
        return os.path.join(self.tmp, "labels")

    def test_labels_with_docs_url_and_severity(self):
        tidy = self.fake_tidy(["torch-class-index-out-of-range", "torch-missing-epsilon"])
        labels = codechecker.codechecker_labels(tidy, "https://example.org/docs/checks")
        self.assertEqual(sorted(labels), ["torch-class-index-out-of-range", "torch-missing-epsilon"])
        self.assertIn("doc_url:https://example.org/docs/checks/torch-missing-epsilon.md",
                      labels["torch-missing-epsilon"])
        self.assertIn("severity:HIGH", labels["torch-class-index-out-of-range"])
        self.assertIn("severity:MEDIUM", labels["torch-missing-epsilon"])
        self.assertIn("profile:default", labels["torch-missing-epsilon"])

    def test_merge_keeps_other_checks_and_replaces_old_torch_entries(self):
        tidy = self.fake_tidy(["torch-missing-epsilon"])
        d = self.labels_dir({"bugprone-foo": ["severity:LOW"], "torch-gone": ["severity:HIGH"]})
        self.assertEqual(codechecker.write_codechecker_labels(d, tidy, "https://x.org/c"), 0)
        with open(os.path.join(d, "analyzers", "clang-tidy.json")) as f:
            data = json.load(f)
        self.assertEqual(sorted(data["labels"]), ["bugprone-foo", "torch-missing-epsilon"])
        self.assertEqual(data["labels"]["bugprone-foo"], ["severity:LOW"])

    def test_bad_directory_and_bad_tool_are_input_errors(self):
        tidy = self.fake_tidy(["torch-missing-epsilon"])
        with self.assertRaises(InputError):
            codechecker.write_codechecker_labels(os.path.join(self.tmp, "none"), tidy, None)
        self.write("other/analyzers/clang-tidy.json", json.dumps({"analyzer": "clangsa", "labels": {}}))
        with self.assertRaises(InputError):
            codechecker.write_codechecker_labels(os.path.join(self.tmp, "other"), tidy, None)
        with self.assertRaises(InputError):
            codechecker.codechecker_labels(self.fake_tidy([]), None)
