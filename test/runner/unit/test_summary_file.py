import json

from runner_unit import TempDirTest

from torch_tidy_runner import summary_file as sf


def fn(usr, file, line=1, **facts):
    return dict(usr=usr, name=usr.strip("c:@F@#"), file=file, line=line, **facts)


class SummaryFileTest(TempDirTest):
    def test_merge_keeps_the_first_definition_and_sorts(self):
        a = {"functions": [fn("c:@F@g#", "/p/b.cpp", 5, trains=True)],
             "calls": [{"usr": "c:@F@f#", "file": "/p/b.cpp", "line": 9}]}
        b = {"functions": [fn("c:@F@g#", "/p/a.cpp", 7), fn("c:@F@f#", "/p/a.cpp", 1)],
             "calls": [{"usr": "c:@F@f#", "file": "/p/a.cpp", "line": 3}]}
        merged = sf.merge_summaries([a, b])
        self.assertEqual([(f["usr"], f["file"]) for f in merged["functions"]],
                         [("c:@F@f#", "/p/a.cpp"), ("c:@F@g#", "/p/a.cpp")])  # by (usr, file, line)
        self.assertEqual([c["file"] for c in merged["calls"]], ["/p/a.cpp", "/p/b.cpp"])
        self.assertEqual(sf.merge_summaries([b, a]), merged)  # order of the parts does not matter

    def test_text_is_torch_tidys_format(self):
        table = {"functions": [dict(fn("c:@F@f#", "/p/a.cpp", 2, trains=True), zeta=1)], "calls": []}
        text = sf.summaries_text(table)
        self.assertEqual(text, '{\n  "format": "torch-tidy-summaries",\n  "version": 2,\n  "functions": [\n'
                               '    {"usr": "c:@F@f#", "name": "f", "file": "/p/a.cpp", "line": 2, '
                               '"trains": true, "zeta": 1}\n  ],\n  "calls": []\n}\n')
        path = self.write("s.json", text)
        read, why = sf.read_summary_file(path)
        self.assertIsNone(why)
        self.assertEqual(read["functions"], table["functions"])

    def test_read_errors(self):
        for data, why in (({"format": "x"}, "not a torch-tidy summary file"),
                          ({"format": "torch-tidy-summaries", "version": 3}, "version 3 is not supported"),
                          ({"format": "torch-tidy-summaries", "version": 2, "functions": [{"name": "f"}]},
                           'an entry of "functions" without "usr"'),
                          ({"format": "torch-tidy-summaries", "version": 2, "reads": [1]},
                           '"reads" is not an array of strings')):
            self.assertIn(why, sf.read_summary_file(self.write("bad.json", json.dumps(data)))[1])
        self.assertEqual(sf.read_summary_file(self.tmp + "/none.json"), (None, "no such file"))

    def test_view_leaves_out_the_files_own_entries(self):
        table = sf.SummaryTable(sf.merge_summaries([{
            "functions": [fn("c:@F@f#", "/p/a.cpp", trains=True), fn("c:@F@g#", "/p/b.cpp")],
            "calls": [{"usr": "c:@F@g#", "file": "/p/a.cpp", "line": 3},
                      {"usr": "c:@F@g#", "file": "/p/b.cpp", "line": 4}]}]))
        reads = sf.Reads(["c:@F@f#", "c:@F@g#"], ["c:@F@g#"])  # b.cpp calls f, defines g
        view = table.view("/p/b.cpp", reads)
        self.assertEqual(sorted(view), ["calls c:@F@g#", "function c:@F@f#"])
        self.assertEqual([c["file"] for c in view["calls c:@F@g#"]], ["/p/a.cpp"])
        self.assertEqual(table.view("/p/a.cpp", sf.Reads(["c:@F@f#"], ["c:@F@f#"])), {})
        changed = dict(view, **{"function c:@F@f#": fn("c:@F@f#", "/p/a.cpp")})
        self.assertNotEqual(sf.view_digest(view), sf.view_digest(changed))
        self.assertEqual(sf.view_digest(view), sf.view_digest(dict(reversed(list(view.items())))))
        self.assertEqual(sf.view_changes(view, changed, table), "f")


class AgreesTest(TempDirTest):
    def test_agrees(self):
        table = sf.SummaryTable(sf.merge_summaries([{
            "functions": [fn("c:@F@f#", "/p/a.cpp", 2, trains=True)],
            "calls": [{"usr": "c:@F@g#", "file": "/p/a.cpp", "line": 3}]}]))
        same = {"functions": [fn("c:@F@f#", "/p/a.cpp", 2, trains=True)],
                "calls": [{"usr": "c:@F@g#", "file": "/p/a.cpp", "line": 3}], "reads": []}
        self.assertTrue(sf.agrees(same, table))
        self.assertFalse(sf.agrees(dict(same, functions=[fn("c:@F@f#", "/p/a.cpp", 2, trains=False)]), table))
        self.assertFalse(sf.agrees(dict(same, calls=[{"usr": "c:@F@h#", "file": "/p/a.cpp", "line": 9}]), table))
        self.assertFalse(sf.agrees(dict(same, functions=[fn("c:@F@new#", "/p/a.cpp", 5)]), table))
        # The same inline function exported by another file from its own place: the table's wins.
        self.assertTrue(sf.agrees(dict(same, functions=[fn("c:@F@f#", "/p/h.h", 1)]), table))

    def test_facts_view(self):
        view = {"function f": {"usr": "f"}, "calls g": [{"usr": "g"}]}
        self.assertEqual(sf.facts_view(view), {"function f": {"usr": "f"}})
