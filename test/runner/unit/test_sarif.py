import json
import os

from runner_unit import TempDirTest

from torch_tidy_runner import common, sarif


class SarifTest(TempDirTest):
    def tearDown(self):
        common.configure(os.path.join(common.PACKAGE_DIR, "..", "run-torch-tidy"),
                         "@PROJECT_VERSION@", "@LLVM_PACKAGE_VERSION@", "@CMAKE_SOURCE_DIR@")

    def test_report(self):
        os.makedirs(os.path.join(self.tmp, "bin"))
        common.configure(os.path.join(self.tmp, "bin", "run-torch-tidy"), "1.2.3", "19.1.7", "@CMAKE_SOURCE_DIR@")
        src = self.write("src/a b.cpp", "\u00e9 = load(m);\n")
        note = {"file": src, "line": 1, "column": 3, "level": "note", "message": "see", "snippet": []}
        diags = [{"file": src, "line": 1, "column": 6, "level": "warning", "check": "torch-demo",
                  "message": "no device", "notes": [note], "snippet": []},
                 {"file": None, "line": 0, "column": 0, "level": "error", "check": "",
                  "message": "bad flag", "notes": [], "snippet": []}]
        block = "\n".join([
            "  - DiagnosticName:  torch-demo",
            "    DiagnosticMessage:",
            "      Message:         'no device'",
            "      FilePath:        '%s'" % src,
            "      FileOffset:      5",
            "      Replacements:",
            "        - FilePath:        '%s'" % src,
            "          Offset:          11",
            "          Length:          0",
            "          ReplacementText: ', kCPU'",
        ])
        data = json.loads(sarif.sarif_report(diags, self.tmp, "19.1.7", [block], None))
        run = data["runs"][0]
        self.assertEqual(run["tool"]["driver"]["version"], "1.2.3")
        self.assertEqual(run["tool"]["driver"]["fullName"], "torch-tidy 1.2.3 (LLVM 19.1.7)")
        self.assertEqual([r["id"] for r in run["tool"]["driver"]["rules"]], ["torch-demo", "clang-diagnostic-error"])
        first, second = run["results"]
        loc = first["locations"][0]["physicalLocation"]
        self.assertEqual(loc["artifactLocation"], {"uri": "src/a%20b.cpp", "uriBaseId": "SRCROOT"})
        self.assertEqual(loc["region"], {"startLine": 1, "startColumn": 5})  # byte 6 is UTF-16 column 5
        self.assertEqual(first["message"]["text"], "no device.")
        self.assertEqual(first["relatedLocations"][0]["message"]["text"], "see.")
        self.assertEqual(first["fixes"][0]["description"]["text"], "Insert ', kCPU'.")
        self.assertIn("torchTidyFindingHash/v1", first["partialFingerprints"])
        self.assertEqual((second["ruleIndex"], second["level"], second["locations"]), (1, "error", []))
        self.assertEqual(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://%s/" % self.tmp)

    def test_driver_version_never_a_placeholder(self):
        os.makedirs(os.path.join(self.tmp, "bin"))
        common.configure(os.path.join(self.tmp, "bin", "run-torch-tidy"), "@PROJECT_VERSION@", "x", "@x@")
        tidy = self.write("tidy", "#!/bin/sh\necho 'torch-tidy version 7.8.9 (LLVM 19.1.7)'\n")
        os.chmod(tidy, 0o755)
        self.assertEqual(sarif.driver_version(tidy), "7.8.9")
        self.assertIsNone(sarif.driver_version(None))


def report(results, rules, root="file:///r/"):
    return {"$schema": sarif.SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "torch-tidy", "version": "1.0.0", "rules": [{"id": r} for r in rules]}},
        "originalUriBaseIds": {"SRCROOT": {"uri": root}}, "columnKind": "utf16CodeUnits",
        "results": results}]}


def result(rule, uri, line, col=1, text="m."):
    return {"ruleId": rule, "ruleIndex": 0, "level": "warning", "message": {"text": text},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri, "uriBaseId": "SRCROOT"},
                                                "region": {"startLine": line, "startColumn": col}}}],
            "partialFingerprints": {"torchTidyFindingHash/v1": "x:1"}}


class MergeSarifTest(TempDirTest):
    def test_merged_once_in_order(self):
        header = result("torch-b", "inc/h.h", 3)
        one = report([result("torch-b", "src/z.cpp", 2), header], ["torch-b"])
        two = report([dict(header, partialFingerprints={"torchTidyFindingHash/v1": "y:1"}),
                      result("torch-a", "src/a.cpp", 9), result("clang-diagnostic-error", "src/a.cpp", 9)],
                     ["torch-b", "torch-a", "clang-diagnostic-error"])
        merged = json.loads(sarif.merge_sarif([("one", one), ("two", two)]))
        results = merged["runs"][0]["results"]
        self.assertEqual([(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                          for r in results],
                         [("torch-b", "inc/h.h"), ("clang-diagnostic-error", "src/a.cpp"),
                          ("torch-a", "src/a.cpp"), ("torch-b", "src/z.cpp")])
        rules = [r["id"] for r in merged["runs"][0]["tool"]["driver"]["rules"]]
        self.assertEqual(rules, ["torch-b", "clang-diagnostic-error", "torch-a"])
        self.assertEqual([r["ruleIndex"] for r in results], [0, 1, 2, 0])

    def test_different_roots_are_refused(self):
        with self.assertRaisesRegex(sarif.InputError, "differ in originalUriBaseIds"):
            sarif.merge_sarif([("a", report([], [])), ("b", report([], [], root="file:///other/"))])
        with self.assertRaisesRegex(sarif.InputError, "not a SARIF 2.1.0 report"):
            sarif.merge_sarif([("a", {"version": "2.0.0"})])
