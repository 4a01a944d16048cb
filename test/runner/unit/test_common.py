import os
import stat

from runner_unit import TempDirTest, captured_stderr

from torch_tidy_runner import common


class CommonTest(TempDirTest):
    def tearDown(self):
        common.configure(os.path.join(common.PACKAGE_DIR, "..", "run-torch-tidy"),
                         "@PROJECT_VERSION@", "@LLVM_PACKAGE_VERSION@", "@CMAKE_SOURCE_DIR@")

    def test_unwritable(self):
        self.assertIn("is a directory", common.unwritable(self.tmp))
        self.assertIn("does not exist", common.unwritable(os.path.join(self.tmp, "no", "x.json")))
        self.assertIsNone(common.unwritable(os.path.join(self.tmp, "x.json")))

    def test_write_if_changed(self):
        path = os.path.join(self.tmp, "t.json")
        self.assertEqual(common.write_if_changed(path, "a\n"), (True, None))
        self.assertEqual(common.write_if_changed(path, "a\n"), (False, None))  # same bytes: untouched
        self.assertEqual(common.write_if_changed(path, "b\n"), (True, None))
        with open(path) as f:
            self.assertEqual(f.read(), "b\n")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644 & ~common.current_umask())
        self.assertEqual(os.listdir(self.tmp), ["t.json"])  # no temporary file left
        written, error = common.write_if_changed(os.path.join(self.tmp, "no", "t.json"), "x")
        self.assertFalse(written)
        self.assertIn("cannot write", error)

    def test_configured_version_wins(self):
        common.configure(os.path.join(self.tmp, "bin", "run-torch-tidy"), "9.8.7", "19.1.7", "@CMAKE_SOURCE_DIR@")
        self.assertEqual(common.VERSION, "9.8.7")
        self.assertEqual(common.script_dir(), os.path.realpath(os.path.join(self.tmp, "bin")))

    def test_unconfigured_version_from_cmakelists_next_to_tool(self):
        self.write("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(torch-tidy VERSION 4.5.6 LANGUAGES CXX)\n")
        os.makedirs(os.path.join(self.tmp, "tool"))
        os.makedirs(os.path.join(self.tmp, "alone", "bin"))
        common.configure(os.path.join(self.tmp, "tool", "run-torch-tidy"), "@PROJECT_VERSION@",
                         "@LLVM_PACKAGE_VERSION@", "@CMAKE_SOURCE_DIR@")
        self.assertEqual(common.VERSION, "4.5.6")
        common.configure(os.path.join(self.tmp, "alone", "bin", "run-torch-tidy"), "@PROJECT_VERSION@",
                         "@LLVM_PACKAGE_VERSION@", "@CMAKE_SOURCE_DIR@")
        self.assertEqual(common.VERSION, "unknown")

    def test_docs_checks_dir_order(self):
        installed = os.path.join(self.tmp, "p", "share", "doc", "torch-tidy", "checks")
        source = os.path.join(self.tmp, "src", "docs", "checks")
        os.makedirs(installed)
        os.makedirs(source)
        os.makedirs(os.path.join(self.tmp, "p", "bin"))
        common.configure(os.path.join(self.tmp, "p", "bin", "run-torch-tidy"), "1.0.0", "19.1.7",
                         os.path.join(self.tmp, "src"))
        self.assertEqual(common.docs_checks_dir(), installed)  # installed pages win
        os.rmdir(installed)
        self.assertEqual(common.docs_checks_dir(), source)    # then the configured source tree
        common.configure(os.path.join(self.tmp, "p", "bin", "run-torch-tidy"), "1.0.0", "19.1.7",
                         "@CMAKE_SOURCE_DIR@")
        self.assertIsNone(common.docs_checks_dir())

    def test_runner_identity_covers_the_entry_point(self):
        script = self.write("bin/run-torch-tidy", "one")
        common.configure(script, "1.0.0", "19.1.7", "@CMAKE_SOURCE_DIR@")
        first = common.runner_identity()
        self.write("bin/run-torch-tidy", "two")
        self.assertNotEqual(first, common.runner_identity())

    def test_fail_is_one_line_and_status_2(self):
        with captured_stderr() as err, self.assertRaises(SystemExit) as e:
            common.fail("bad thing")
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(err.getvalue(), "run-torch-tidy: error: bad thing\n")

    def test_run_all_runs_every_item_and_raises_the_first_error(self):
        import concurrent.futures
        done = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            common.run_all(pool, done.append, [3, 1, 2])
        self.assertEqual(sorted(done), [1, 2, 3])

        def boom(i):
            if i == 2:
                raise ValueError("two")
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            with self.assertRaises(ValueError):
                common.run_all(pool, boom, [1, 2, 3])
