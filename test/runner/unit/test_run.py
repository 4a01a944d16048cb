from runner_unit import TempDirTest, captured_stderr, namespace

from torch_tidy_runner import run


def result(file, status="ok", unknown=(), message=""):
    return namespace(entry=namespace(file=file), status=status, unknown_flags=list(unknown), message=message,
                     stderr="", diagnostics=[])


class RunTest(TempDirTest):
    def test_report_failures(self):
        results = [result("/x/a.cpp", unknown=["-fgcc"]), result("/x/b.cpp", unknown=["-fgcc"]),
                   result("/x/c.cpp", status="crashed", message="torch-tidy crashed (SIGSEGV)")]
        with captured_stderr() as err:
            run.report_failures(namespace(verbose=False), results, "/x/compile_commands.json")
        lines = err.getvalue().splitlines()
        self.assertRegex(lines[0], r"^run-torch-tidy: error: clang does not know the compiler flag '-fgcc' "
                                   r"\(used by .*a\.cpp and 1 more in /x/compile_commands\.json\); remove it "
                                   r"from the build or pass --drop-flag=-fgcc$")
        self.assertRegex(lines[1], r"^run-torch-tidy: error: .*c\.cpp: torch-tidy crashed \(SIGSEGV\)$")

    def test_summaries_only_status(self):
        info = namespace(functions=1, calls=0, path="/x/torch-tidy-summaries.json", written=True, error=None)
        args = namespace(quiet=False, verbose=False)
        with captured_stderr() as err:
            self.assertEqual(run.summaries_only_status(args, [result("/x/a.cpp")], info, 1.0, 0, "db"), 0)
        self.assertRegex(err.getvalue(), r"^run-torch-tidy: 1 file, summaries of 1 function and 0 calls in "
                                         r".*torch-tidy-summaries\.json \(written\), 1\.0 s\n$")
        with captured_stderr():
            self.assertEqual(run.summaries_only_status(args, [result("/x/a.cpp", unknown=["-f"])], info, 1, 0, "db"), 2)
            self.assertEqual(run.summaries_only_status(args, [result("/x/a.cpp", status="failed")], info, 1, 0, "db"), 3)
