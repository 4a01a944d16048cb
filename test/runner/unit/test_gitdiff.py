import os
import shutil
import subprocess
import unittest

from runner_unit import TempDirTest

from torch_tidy_runner import gitdiff
from torch_tidy_runner.common import InputError
from torch_tidy_runner.database import Entry


class GitDiffTest(TempDirTest):
    def test_git_unquote(self):
        self.assertEqual(gitdiff.git_unquote("b/plain.cpp"), "b/plain.cpp")
        self.assertEqual(gitdiff.git_unquote('"b/sp ace\\t\\"q\\".cpp"'), 'b/sp ace\t"q".cpp')
        self.assertEqual(gitdiff.git_unquote('"b/\\303\\251.cpp"'), "b/\u00e9.cpp")

    def git(self, *argv):
        subprocess.run(["git", "-C", self.tmp, "-c", "user.name=t", "-c", "user.email=t@t"] + list(argv),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @unittest.skipUnless(shutil.which("git"), "git")
    def test_changed_lines_and_includers(self):
        a = self.write("a.cpp", '#include "h.h"\nint a;\n')
        b = self.write("b.cpp", "int b;\nint c;\nint d;\n")
        h = self.write("h.h", "int h;\n")
        self.git("init", "-q")
        self.git("add", ".")
        self.git("commit", "-q", "-m", "one")
        self.write("b.cpp", "int b;\nint C;\nint d;\nint e;\n")
        self.write("h.h", "int h2;\n")
        top, changed = gitdiff.git_changed_lines("HEAD", self.tmp)
        self.assertEqual(os.path.realpath(top), os.path.realpath(self.tmp))
        self.assertEqual(changed, {os.path.realpath(b): {2, 4}, os.path.realpath(h): {1}})
        e = Entry(self.tmp, a, ["c++", "-c", a])
        self.assertTrue(gitdiff.includes_changed(e, {os.path.realpath(h)}, top, {}))
        self.assertFalse(gitdiff.includes_changed(e, {os.path.realpath(b)}, top, {}))
        with self.assertRaises(InputError) as err:
            gitdiff.git_changed_lines("no-such-branch", self.tmp)
        self.assertIn("cannot resolve 'no-such-branch'", str(err.exception))
