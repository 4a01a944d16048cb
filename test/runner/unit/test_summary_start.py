from runner_unit import TempDirTest, namespace

from torch_tidy_runner import summary_start as ss
from torch_tidy_runner.database import Entry
from torch_tidy_runner.summary_file import Reads, SummaryTable, merge_summaries


def fn(usr, file):
    return {"usr": usr, "name": usr, "file": file, "line": 1}


class StartTest(TempDirTest):
    def test_strongly_connected(self):
        comps = ss.strongly_connected(["a", "b", "c", "d"], {"a": ["b"], "b": ["a", "c"], "c": ["d"]})
        self.assertEqual([sorted(c) for c in comps], [["d"], ["c"], ["a", "b"]])  # callees first

    def states(self, reads):
        out = []
        for f, (r, defines) in sorted(reads.items()):
            st = ss.FileState(Entry("/p", f, ["c++"]))
            st.reads = Reads(r, defines)
            st.key = namespace(result="key-" + f)
            out.append(st)
        return out

    def test_without_the_cache_the_previous_table_is_kept(self):
        previous = {"functions": [fn("f", "/p/a.cpp"), fn("gone", "/p/old.cpp")], "calls": []}
        states = self.states({"/p/a.cpp": ([], ["f"])})
        table, seeds, reused, afresh = ss.first_table(previous, states, {"/p/a.cpp"}, False, None, None)
        self.assertEqual([f["usr"] for f in table["functions"]], ["f"])  # old.cpp left the database
        self.assertEqual((seeds, reused, afresh), ({}, set(), set()))

    def test_a_changed_file_defers_its_readers(self):
        previous = {"functions": [fn("f", "/p/a.cpp"), fn("g", "/p/b.cpp")], "calls": []}
        states = self.states({"/p/a.cpp": ([], ["f"]), "/p/b.cpp": (["f"], ["g"])})
        record = {"/p/a.cpp": "other key", "/p/b.cpp": "key-/p/b.cpp"}  # a.cpp changed
        log = []
        table, seeds, reused, afresh = ss.first_table(previous, states, {"/p/a.cpp", "/p/b.cpp"}, True,
                                                      record, lambda f, m: log.append((f, m)), reuse=False)
        self.assertEqual(table["functions"], [])  # a's entries and b's (it reads a's) start afresh
        self.assertEqual([st.level for st in states], [0, 1])  # b waits for a
        self.assertEqual(list(seeds), ["/p/b.cpp"])
        self.assertIn("deferred to round 1", log[0][1])

    def test_reuse_keeps_entries_off_cycles(self):
        previous = {"functions": [fn("f", "/p/a.cpp"), fn("g", "/p/b.cpp")], "calls": []}
        states = self.states({"/p/a.cpp": ([], ["f"]), "/p/b.cpp": (["f"], ["g"])})
        record = {"/p/a.cpp": "other key", "/p/b.cpp": "key-/p/b.cpp"}
        table, seeds, reused, afresh = ss.first_table(previous, states, {"/p/a.cpp", "/p/b.cpp"}, True,
                                                      record, lambda f, m: None)
        self.assertEqual([f["usr"] for f in table["functions"]], ["f", "g"])
        self.assertEqual(reused, {"/p/a.cpp", "/p/b.cpp"})
        self.assertEqual(afresh, set())

    def test_reuse_conflict_names_the_cycle(self):
        table = SummaryTable(merge_summaries([{"functions": [fn("f", "/p/a.cpp"), fn("g", "/p/b.cpp")],
                                               "calls": []}]))
        states = self.states({"/p/a.cpp": (["g"], ["f"]), "/p/b.cpp": (["f"], ["g"])})
        why = ss.reuse_conflict(states, {"/p/a.cpp"}, set(), (table, table))
        self.assertTrue(why.startswith("a cycle of calls across"))
        self.assertIsNone(ss.reuse_conflict(states, set(), set(), (table, table)))
