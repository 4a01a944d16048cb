import os
import time

from runner_unit import TempDirTest, captured_stderr, namespace

from torch_tidy_runner import cache
from torch_tidy_runner.database import Entry


def args(tmp, **kw):
    a = dict(checks=None, config=None, config_file=None, header_filter=None, warnings_as_errors=None,
             extra_arg=[], extra_arg_before=[], tidy_arg=[], cache=True, cache_dir=tmp,
             cache_size=1 << 20)
    a.update(kw)
    return namespace(**a)


class CacheTest(TempDirTest):
    def make(self, **kw):
        log = []
        c = cache.ResultCache(args(os.path.join(self.tmp, "cache"), **kw), "/bin/true", ("19", "19.1.7"),
                              "clang++", log.append)
        return c, log

    def test_parse_size(self):
        self.assertEqual(cache.parse_size("500M"), 500 << 20)
        self.assertEqual(cache.parse_size("1.5k"), 1536)
        self.assertEqual(cache.parse_size("2GiB"), 2 << 30)
        self.assertIsNone(cache.parse_size("lots"))

    def test_arguments_from_the_environment(self):
        a = namespace(cache=None, cache_size=None, cache_dir=None)
        env = {"TORCH_TIDY_NO_CACHE": "1", "TORCH_TIDY_CACHE_SIZE": "3M", "TORCH_TIDY_CACHE_DIR": self.tmp}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            cache.check_cache_arguments(a)
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        self.assertEqual((a.cache, a.cache_size, a.cache_dir), (False, 3 << 20, self.tmp))
        bad = namespace(cache=True, cache_size="huge", cache_dir=self.tmp)
        with captured_stderr() as err, self.assertRaises(SystemExit):
            cache.check_cache_arguments(bad)
        self.assertIn("--cache-size: 'huge' is not a size", err.getvalue())

    def test_entries_round_trip_and_damage_is_a_miss(self):
        c, log = self.make()
        c.write("r", "ab" + "0" * 62, {"x": [1, 2]})
        self.assertEqual(c.read("r", "ab" + "0" * 62), {"x": [1, 2]})
        self.assertIsNone(c.read("r", "cd" + "0" * 62))  # missing: a miss, no note
        path = c.path("r", "ab" + "0" * 62)
        with open(path, "r+b") as f:
            f.seek(12)
            f.write(b"garbage")
        self.assertIsNone(c.read("r", "ab" + "0" * 62))
        self.assertEqual(len(log), 1)
        self.assertIn("is unreadable; ignored", log[0])

    def test_key_depends_on_options_and_contents(self):
        src = self.write("a.cpp", "int x;\n")
        e = Entry(self.tmp, src, ["c++", "-c", src])
        c1, _ = self.make()
        c1.configs[self.tmp] = "Checks: '*'\n"  # as --dump-config said
        k1 = c1.key(e)
        c2, _ = self.make(checks="-*,torch-*")
        c2.configs[self.tmp] = "Checks: '*'\n"
        self.assertNotEqual(k1.manifest, c2.key(e).manifest)
        self.write("a.cpp", "int y;\n")
        c3, _ = self.make()
        c3.configs[self.tmp] = "Checks: '*'\n"
        self.assertNotEqual(k1.manifest, c3.key(e).manifest)
        e.count = 2
        self.assertEqual(c3.key(e).why, "several compile commands for the file")

    def test_summary_keys_are_distinct_and_stable(self):
        self.assertEqual(cache.ResultCache.reads_key("k"), cache.ResultCache.reads_key("k"))
        self.assertNotEqual(cache.ResultCache.summary_result_key("k", "d1"),
                            cache.ResultCache.summary_result_key("k", "d2"))

    def test_evict_least_recently_used(self):
        c, _ = self.make(cache_size=1)
        c.write("r", "aa" + "1" * 62, {"n": 1})
        c.write("r", "bb" + "2" * 62, {"n": 2})
        old = time.time() - 100
        os.utime(c.path("r", "aa" + "1" * 62), (old, old))
        c.limit = os.path.getsize(c.path("r", "bb" + "2" * 62))
        c.evict()
        self.assertFalse(os.path.exists(c.path("r", "aa" + "1" * 62)))
        self.assertTrue(os.path.exists(c.path("r", "bb" + "2" * 62)))
