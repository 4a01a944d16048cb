import json
import os

from runner_unit import TempDirTest

from torch_tidy_runner import database
from torch_tidy_runner.common import InputError


class DatabaseTest(TempDirTest):
    def db(self, items):
        return self.write("build/compile_commands.json", json.dumps(items))

    def test_load_arguments_command_and_duplicates(self):
        path = self.db([
            {"directory": ".", "file": "../src/a.cpp", "arguments": ["c++", "-c", "../src/a.cpp"]},
            {"directory": "/abs", "file": "b.cpp", "command": "c++ -DX='1 2' -c b.cpp"},
            {"directory": ".", "file": "../src/a.cpp", "arguments": ["c++", "-O2", "-c", "../src/a.cpp"]},
        ])
        entries = database.load_database(path)
        self.assertEqual([e.file for e in entries], [os.path.join(self.tmp, "src", "a.cpp"), "/abs/b.cpp"])
        self.assertEqual(entries[0].directory, os.path.join(self.tmp, "build"))
        self.assertEqual(entries[0].count, 2)  # the first command is kept, the count says two
        self.assertEqual(entries[0].args, ["c++", "-c", "../src/a.cpp"])
        self.assertEqual(entries[1].args, ["c++", "-DX=1 2", "-c", "b.cpp"])

    def test_load_errors(self):
        for text, message in (("{", "is not valid JSON"), ("{}", "must hold a JSON array"),
                              ('[{"file": "a.cpp"}]', "entry 1 lacks")):
            path = self.write("build/compile_commands.json", text)
            with self.assertRaises(InputError) as e:
                database.load_database(path)
            self.assertIn(message, str(e.exception))

    def test_find_database_walks_up(self):
        path = self.db([])
        deep = os.path.join(self.tmp, "build", "x", "y")
        os.makedirs(deep)
        cwd = os.getcwd()
        try:
            os.chdir(deep)
            self.assertEqual(database.find_database(None), path)
        finally:
            os.chdir(cwd)
        self.assertEqual(database.find_database(os.path.join(self.tmp, "build")), path)
        with self.assertRaises(InputError):
            database.find_database(self.tmp)

    def entries(self):
        return [database.Entry("/p", "/p/src/%s" % n, ["c++", n]) for n in ("a.cpp", "b.cpp", "c_test.cpp")]

    def test_select_regexes_and_excludes(self):
        sel = database.select_entries(self.entries(), ["src/[ab]", "_test"], ["b\\.cpp"], "db")
        self.assertEqual([os.path.basename(e.file) for e in sel], ["a.cpp", "c_test.cpp"])
        with self.assertRaises(InputError) as e:
            database.select_entries(self.entries(), ["nothing"], [], "db.json")
        self.assertIn("'nothing': not in db.json", str(e.exception))

    def test_select_paths(self):
        a = self.write("a.cpp", "")
        h = self.write("a.h", "")
        other = self.write("other.cpp", "")
        entries = [database.Entry(self.tmp, a, ["c++"])]
        self.assertEqual(database.select_paths(entries, [a, h, a], "db"), entries)  # header skipped
        with self.assertRaises(InputError) as e:
            database.select_paths(entries, [other], "db")
        self.assertIn("not in db", str(e.exception))
        with self.assertRaises(InputError):
            database.select_paths(entries, [os.path.join(self.tmp, "gone.cpp")], "db")


class ShardTest(TempDirTest):
    def test_parse_shard(self):
        self.assertEqual(database.parse_shard("2/4"), (2, 4))
        self.assertEqual(database.parse_shard(" 1 / 1 "), (1, 1))
        for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2", "2/", "", None, "1/2/3"):
            self.assertIsNone(database.parse_shard(bad), bad)

    def test_shards_cover_every_file_once_whatever_the_order(self):
        files = ["/p/src/f%02d.cpp" % i for i in range(40)]
        entries = [database.Entry("/p/build", f, ["c++"]) for f in files]
        shards = [database.select_shard(entries, (k, 4), "/p/build") for k in range(1, 5)]
        self.assertEqual(sorted(e.file for s in shards for e in s), files)
        self.assertTrue(all(shards))  # 40 files: none of 4 shards empty
        reversed_shards = [database.select_shard(entries[::-1], (k, 4), "/p/build") for k in range(1, 5)]
        self.assertEqual([sorted(e.file for e in s) for s in shards],
                         [sorted(e.file for e in s) for s in reversed_shards])
        # Adding a file moves no other file; a checkout elsewhere splits alike.
        more = entries + [database.Entry("/p/build", "/p/src/new.cpp", ["c++"])]
        for k in range(1, 5):
            kept = [e.file for e in database.select_shard(more, (k, 4), "/p/build") if e.file != "/p/src/new.cpp"]
            self.assertEqual(kept, [e.file for e in shards[k - 1]])
        self.assertEqual(database.shard_of("/p/src/f01.cpp", "/p/build", 4),
                         database.shard_of("/q/src/f01.cpp", "/q/build", 4))
