import json
import os
import re

from runner_unit import TempDirTest

from torch_tidy_runner import flags
from torch_tidy_runner.database import Entry


class FlagsTest(TempDirTest):
    def test_gcc_only_flags_dropped_and_counted(self):
        a = Entry("/p", "/p/a.cpp", ["g++", "-O2", "-fno-var-tracking", "-fconcepts-diagnostics-depth=3", "a.cpp"])
        b = Entry("/p", "/p/b.cpp", ["g++", "-fno-var-tracking", "-ftree-vectorize", "b.cpp"])
        dropped = flags.drop_gcc_only_flags([a, b])
        self.assertEqual(dropped, {"-fno-var-tracking": 2, "-fconcepts-diagnostics-depth=3": 1})
        self.assertEqual(a.args, ["g++", "-O2", "a.cpp"])
        self.assertEqual(b.args, ["g++", "-ftree-vectorize", "b.cpp"])  # clang knows this one

    def test_flag_regex_matches_exactly_the_flag(self):
        rx = flags.flag_regex("-fsanitize=address+x(y)")
        self.assertTrue(re.fullmatch(rx, "-fsanitize=address+x(y)"))
        self.assertFalse(re.fullmatch(rx, "-fsanitize=addressxx(y)"))

    def test_drop_flags_writes_a_database(self):
        e = Entry("/p", "/p/a.cpp", ["c++", "-mfoo", "-mbar=1", "-O2", "a.cpp"])
        d = flags.drop_flags([e], [r"-mfoo", r"-mbar=.*"], self.tmp)
        self.assertEqual(e.args, ["c++", "-O2", "a.cpp"])
        with open(os.path.join(d, "compile_commands.json")) as f:
            self.assertEqual(json.load(f), [{"directory": "/p", "file": "/p/a.cpp", "arguments": e.args}])
