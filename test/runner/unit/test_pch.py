import json
import os
import threading

from runner_unit import TempDirTest, namespace

from torch_tidy_runner import pch
from torch_tidy_runner.database import Entry


class PchTest(TempDirTest):
    def args(self, **kw):
        a = dict(pch_include_regex=r"^(torch|ATen|c10|caffe2)/", header_filter=None, pch_min_files=3,
                 pch_instantiate=True)
        a.update(kw)
        return namespace(**a)

    def entries(self, n, flags=("-isystem", "/mock")):
        out = []
        for i in range(n):
            path = self.write("f%d.cpp" % i, "#include <torch/torch.h>\nint f%d();\n" % i)
            out.append(Entry(self.tmp, path, ["c++"] + list(flags) + ["-c", path]))
        return out

    def test_files_with_the_same_flags_share_one_group(self):
        log = []
        plan = pch.plan_pch(self.args(), "torch-tidy", self.entries(3), "clang++", self.tmp,
                            lambda f, m: log.append(m))
        groups = {id(g): g for g in plan.values()}
        self.assertEqual(len(plan), 3)
        self.assertEqual(len(groups), 1)
        g = next(iter(groups.values()))
        self.assertEqual(g.includes, ("<torch/torch.h>",))
        self.assertEqual(g.build_flags, ["-fpch-instantiate-templates"])
        self.assertTrue(g.path.startswith(os.path.join(self.tmp, "torch-")) and g.path.endswith(".pch"))
        self.assertTrue(all(m.startswith("PCH of <torch/torch.h> shared by 3 files") for m in log))

    def test_too_few_files(self):
        log = []
        plan = pch.plan_pch(self.args(pch_min_files=4), "torch-tidy", self.entries(3), "clang++", self.tmp,
                            lambda f, m: log.append(m))
        self.assertEqual(plan, {})
        self.assertIn("only 3 file(s) share its flags and LibTorch includes (--pch-min-files=4)", log[0])

    def test_input_stamps_and_freshness(self):
        header = self.write("h.h", "x")
        dep = self.write("g.d", "g.pch: %s \\\n  h.h\n" % header)
        stamps = pch.input_stamps(dep, self.tmp)
        self.assertEqual(sorted(stamps), [header])
        g = namespace(path=self.write("g.pch", "pch"))
        with open(g.path + ".inputs.json", "w") as f:
            json.dump(stamps, f)
        self.assertTrue(pch.pch_is_fresh(g))
        self.write("h.h", "changed")
        self.assertFalse(pch.pch_is_fresh(g))

    def test_scan_guards_names_the_header(self):
        header = self.write("lib.h", "#ifdef MY_GUARD_H\n#endif\n")
        g = pch.PchGroup(("k",), Entry(self.tmp, "x.cpp", ["c++"]), [], ("<torch/torch.h>",))
        g.path = os.path.join(self.tmp, "g.pch")
        with open(g.path + ".inputs.json", "w") as f:
            json.dump({header: [0, 0]}, f)
        pch.scan_guards(g, {"MY_GUARD_H": "a.h:1", "OTHER_H": "b.h:1"})
        self.assertEqual(g.guards_used, {"MY_GUARD_H": header, "OTHER_H": None})
        self.assertIsInstance(g.done, threading.Event().__class__)
