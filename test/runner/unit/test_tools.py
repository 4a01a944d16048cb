import os

from runner_unit import TempDirTest

from torch_tidy_runner import tools
from torch_tidy_runner.common import InputError


class ToolsTest(TempDirTest):
    def fake(self, name, version_line):
        path = self.write(name, "#!/bin/sh\necho '%s'\n" % version_line)
        os.chmod(path, 0o755)
        return path

    def test_llvm_version(self):
        self.assertEqual(tools.llvm_version(self.fake("tidy", "LLVM version 19.1.7")), ("19", "19.1.7"))
        self.assertEqual(tools.llvm_version(self.fake("clang", "Debian clang version 14.0.6")), ("14", "14.0.6"))
        self.assertIsNone(tools.llvm_version(self.fake("other", "something else")))
        self.assertIsNone(tools.llvm_version(os.path.join(self.tmp, "missing")))

    def test_explicit_torch_tidy(self):
        path = self.fake("torch-tidy", "LLVM version 19.1.7")
        self.assertEqual(tools.find_torch_tidy(path), path)
        with self.assertRaises(InputError):
            tools.find_torch_tidy(os.path.join(self.tmp, "nope"))

    def test_pch_clang_of_another_version_is_refused(self):
        clang = self.fake("clang++", "clang version 14.0.6")
        path, why = tools.find_pch_clang(clang, "19")
        self.assertIsNone(path)
        self.assertIn("is clang 14.0.6, torch-tidy is LLVM 19", why)
        self.assertEqual(tools.find_pch_clang(self.fake("clang19", "clang version 19.1.7"), "19")[1], None)
