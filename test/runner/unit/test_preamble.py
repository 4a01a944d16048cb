import os
import re

from runner_unit import TempDirTest

from torch_tidy_runner import preamble
from torch_tidy_runner.database import Entry

RX = re.compile(r"^(torch|ATen|c10|caffe2)/")


class PreambleTest(TempDirTest):
    def entry(self, name, text, flags=()):
        path = self.write(name, text)
        return Entry(self.tmp, path, ["c++"] + list(flags) + ["-c", path])

    def test_include_guard(self):
        path = self.write("g.h", "// c\n#ifndef G_H\n#define G_H\nint x;\n#if A\n#endif\n#endif\n")
        t = preamble.SourceText(path)
        self.assertEqual(t.guard, "G_H")
        self.assertEqual(sorted(t.guard_lines), [1, 2, 6])
        not_guard = preamble.SourceText(self.write("n.h", "#ifndef G\n#define G\n#else\n#endif\n"))
        self.assertIsNone(not_guard.guard)

    def test_torch_includes_before_code(self):
        e = self.entry("a.cpp", "// comment\n#pragma once\n#include <vector>\n#include <torch/torch.h>\n"
                                "#include <ATen/ATen.h>\nint main() {}\n#include <torch/script.h>\n")
        self.assertEqual(preamble.torch_includes(e, RX), (("<torch/torch.h>", "<ATen/ATen.h>"), None))

    def test_macro_before_torch_include_stops(self):
        e = self.entry("b.cpp", "#define C10_X 1\n#include <torch/torch.h>\n")
        includes, why = preamble.torch_includes(e, RX)
        self.assertIsNone(includes)
        self.assertIn("'#define C10_X 1' comes before its LibTorch includes", why)

    def test_followed_through_project_header(self):
        self.write("inc/common.h", "#pragma once\n#include <torch/torch.h>\n")
        e = self.entry("c.cpp", '#include "common.h"\nint f();\n', ["-Iinc"])
        includes, why, guards, through = preamble.preamble_torch_includes(e, ["-Iinc"], RX)
        self.assertEqual(includes, ("<torch/torch.h>",))
        self.assertEqual(through, [os.path.join(self.tmp, "inc", "common.h")])

    def test_include_dirs_order(self):
        e = Entry("/w", "/w/a.cpp", ["c++"])
        dirs = preamble.include_dirs(e, ["-Iu", "-isystem", "s", "-idirafter/after", "-isystem/x"])
        self.assertEqual(dirs[:3], [("/w/u", False), ("/w/s", True), ("/x", True)])
        self.assertEqual(dirs[-1], ("/after", True))

    def test_pch_flags(self):
        e = self.entry("d.cpp", "", ["-O2", "-o", "d.o", "-MD", "-MFd.d"])
        self.assertEqual(preamble.pch_flags(e), (["-O2"], None))
        e = self.entry("e.cpp", "", ["-include", "x.h"])
        self.assertEqual(preamble.pch_flags(e), (None, "the flags contain -include"))
        c = Entry(self.tmp, os.path.join(self.tmp, "f.c"), ["cc", "f.c"])
        self.assertEqual(preamble.pch_flags(c), (None, "not a C++ source"))

    def test_without_output_flags(self):
        args = ["-I", "inc", "-o", "a.o", "-c", "-MD", "-MF", "a.d", "-oout", "-MTx", "-std=c++17", "a.cpp"]
        self.assertEqual(list(preamble.without_output_flags(args)),
                         [(0, "-I"), (1, "inc"), (10, "-std=c++17"), (11, "a.cpp")])
