import os

from runner_unit import TempDirTest

from torch_tidy_runner import fixes

YAML = """---
MainSourceFile:  '/w/a.cpp'
Diagnostics:
  - DiagnosticName:  torch-load-without-device
    DiagnosticMessage:
      Message:         'torch::load without a device'
      FilePath:        'a.cpp'
      FileOffset:      10
      Replacements:
        - FilePath:        'a.cpp'
          Offset:          20
          Length:          0
          ReplacementText: ', torch::kCPU'
    Level:           Warning
    BuildDirectory:  '/w'
  - DiagnosticName:  torch-other
    DiagnosticMessage:
      Message:         "say \\"hi\\""
      FilePath:        '/w/b.cpp'
      FileOffset:      3
      Replacements:    []
    Level:           Warning
    BuildDirectory:  '/w'
...
"""


class FixesTest(TempDirTest):
    def test_blocks_and_replacements(self):
        path = self.write("a.yaml", YAML)
        blocks = fixes.yaml_blocks(path)
        self.assertEqual(len(blocks), 2)
        self.assertTrue(fixes.has_replacements(blocks[0]))
        self.assertFalse(fixes.has_replacements(blocks[1]))
        self.assertEqual(fixes.yaml_blocks(os.path.join(self.tmp, "missing.yaml")), [])

    def test_merged_once_and_written(self):
        a, b = self.write("a.yaml", YAML), self.write("b.yaml", YAML)
        results = [type("R", (), {"fixes": a})(), type("R", (), {"fixes": b})(), type("R", (), {"fixes": None})()]
        blocks = fixes.merged_fixes(results)
        self.assertEqual(len(blocks), 2)
        out = os.path.join(self.tmp, "out.yaml")
        fixes.write_fixes_yaml(out, blocks)
        self.assertEqual(fixes.yaml_blocks(out), blocks)
        fixes.write_fixes_yaml(out, [])
        with open(out) as f:
            self.assertEqual(f.read(), "---\nMainSourceFile:  ''\nDiagnostics:     []\n...\n")

    def test_parse_fix_block(self):
        blocks = fixes.yaml_blocks(self.write("a.yaml", YAML))
        self.assertEqual(fixes.parse_fix_block(blocks[0]), (
            "torch-load-without-device", "torch::load without a device", "/w/a.cpp", 10,
            [("/w/a.cpp", 20, 0, ", torch::kCPU")]))
        self.assertEqual(fixes.parse_fix_block(blocks[1])[1], 'say "hi"')

    def test_yaml_scalar(self):
        self.assertEqual(fixes.yaml_scalar("'it''s'"), "it's")
        self.assertEqual(fixes.yaml_scalar('"a\\nb\\x41\\u00e9"'), "a\nbA\u00e9")
        self.assertEqual(fixes.yaml_scalar("  plain "), "plain")

    def test_fix_title(self):
        self.assertEqual(fixes.fix_title("x", [("", ", kCPU")]), "insert ', kCPU'")
        self.assertEqual(fixes.fix_title("x", [("loss", "loss.item()")]), "change 'loss' to 'loss.item()'")
        self.assertEqual(fixes.fix_title("x", [("", "("), ("", ").detach()")]), "insert '.detach()'")
        self.assertEqual(fixes.fix_title("torch-eval-loop-without-no-grad", [("", "torch::NoGradGuard g; ")]),
                         "add 'torch::NoGradGuard g;' before the loop")
        self.assertEqual(fixes.fix_title("x", [("a", ""), ("b", ""), ("c", "d")]), "change to 'd'")
        self.assertEqual(fixes.fix_title("x", [("a", "b"), ("c", "d")]), "apply 2 edits")
        long = "x" * 80
        self.assertEqual(fixes.fix_title("x", [(long, "")]), "remove '%s...'" % ("x" * 57))
