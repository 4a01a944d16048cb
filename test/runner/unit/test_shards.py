import json
import os

from runner_unit import TempDirTest, captured_stderr, namespace

from torch_tidy_runner import shards
from torch_tidy_runner.common import InputError
from torch_tidy_runner.database import Entry
from torch_tidy_runner.summary_file import view_digest


def args(**kw):
    a = dict(shard=None, merge_summaries=None, merge_sarif=None, summaries_only=False, summaries_from=None,
             summaries_out=None, summaries=True, files=[], fix=False, export_fixes=None, output=None,
             format="text", baseline=None, diff=None)
    a.update(kw)
    return namespace(**a)


def export(usr, file):
    return {"functions": [{"usr": usr, "name": usr, "file": file, "line": 1}],
            "calls": [], "reads": []}


class ShardsTest(TempDirTest):
    def error(self, a):
        with captured_stderr() as err, self.assertRaises(SystemExit) as e:
            shards.check_shard_arguments(a)
        self.assertEqual(e.exception.code, 2)
        return err.getvalue().strip()

    def test_arguments(self):
        self.assertIn("--shard: '5/4' is not K/N", self.error(args(shard="5/4")))
        self.assertIn("run --summaries-only --shard K/N per shard", self.error(args(shard="1/4")))
        self.assertIn("--summaries-out goes with --summaries-only --shard K/N",
                      self.error(args(summaries_out="x.json")))
        self.assertIn("give the merged file", self.error(args(merge_summaries=["out.json"])))
        self.assertIn("drop --shard and --format",
                      self.error(args(merge_summaries=["o", "i"], shard="1/2", format="sarif")))
        a = args(shard="1/4", summaries=False)
        shards.check_shard_arguments(a)
        self.assertEqual(a.shard_spec, (1, 4))
        a = args(shard="2/4", summaries_only=True)
        shards.check_shard_arguments(a)
        self.assertEqual((a.summaries_start, a.summaries_target), ({"functions": [], "calls": []}, ""))

    def test_summaries_from_reads_the_table(self):
        path = self.write("t.json", json.dumps({"format": "torch-tidy-summaries", "version": 2,
                                                "functions": [], "calls": []}))
        a = args(shard="1/2", summaries_from=path)
        shards.check_shard_arguments(a)
        self.assertEqual((a.summaries_start, a.summaries_target, a.summaries_single_round),
                         ({"functions": [], "calls": []}, "", True))
        self.assertIn("not a torch-tidy summary file",
                      self.error(args(summaries_from=self.write("bad.json", "{}"))))

    def shard_file(self, k, n, files, options=()):
        states = []
        for f in files:
            st = namespace(entry=Entry("/p", f, ["c++"]), export=export("c:@F@" + os.path.basename(f), f),
                           view={"function x": {"usr": "x"}, "calls y": [{}]})
            states.append(st)
        return self.write("s%d.json" % k, shards.shard_text((k, n), list(options), states))

    def test_round_trip_and_merge(self):
        a = self.shard_file(1, 2, ["/p/a.cpp"])
        b = self.shard_file(2, 2, ["/p/b.cpp", "/p/c.cpp"])
        read = shards.read_shard(a)
        self.assertEqual(read["shard"], (1, 2))
        # The digest is of the functions entries only: the calls change no export.
        self.assertEqual(read["files"]["/p/a.cpp"][1], view_digest({"function x": {"usr": "x"}}))
        preset, table = shards.merge_setup([b, a], [])
        self.assertEqual(sorted(preset), ["/p/a.cpp", "/p/b.cpp", "/p/c.cpp"])
        self.assertEqual([f["usr"] for f in table["functions"]], ["c:@F@a.cpp", "c:@F@b.cpp", "c:@F@c.cpp"])

    def test_merge_errors(self):
        a = self.shard_file(1, 2, ["/p/a.cpp"])
        with self.assertRaisesRegex(InputError, "shard 2/2 of 2 missing"):
            shards.merge_setup([a], [])
        with self.assertRaisesRegex(InputError, "shard 1/2 twice"):
            shards.merge_setup([a, a], [])
        with self.assertRaisesRegex(InputError, r"made with the torch-tidy options \[\], this run has \[--checks=x\]"):
            shards.merge_setup([a, self.shard_file(2, 2, ["/p/b.cpp"])], ["--checks=x"])
        with self.assertRaisesRegex(InputError, "is shard 2/3"):
            shards.merge_setup([a, self.shard_file(2, 3, ["/p/b.cpp"])], [])
        with self.assertRaisesRegex(InputError, "is in two shards"):
            shards.merge_setup([a, self.shard_file(2, 2, ["/p/a.cpp"])], [])
        with self.assertRaisesRegex(InputError, "not the summaries of a shard"):
            shards.read_shard(self.write("t.json", '{"format": "torch-tidy-summaries"}'))
