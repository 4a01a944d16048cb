from runner_unit import TempDirTest, captured_stderr, namespace

from torch_tidy_runner.progress import Progress


def result(file, n, status="ok", cached=False, pch=False):
    return namespace(entry=namespace(file=file), diagnostics=[{"level": "warning"}] * n, status=status,
                     seconds=1.25, cached=cached, pch=pch)


class ProgressTest(TempDirTest):
    def test_lines(self):
        with captured_stderr() as err:
            p = Progress("lines", 12)
            p.file_done(result("/nowhere/a.cpp", 1, pch=True))
            p.start_round(1, 2, "summaries across files, round 1: 2 of 12 files again")
            p.file_done(result("/nowhere/b.cpp", 2, status="compile-error", cached=True))
            p.message("a note")
        lines = err.getvalue().splitlines()
        self.assertRegex(lines[0], r"^run-torch-tidy: \[ 1/12\] .*a\.cpp \(1 diagnostic, 1\.2 s, pch\)$")
        self.assertEqual(lines[1], "run-torch-tidy: summaries across files, round 1: 2 of 12 files again")
        self.assertRegex(lines[2], r"^run-torch-tidy: \[round 1: 1/2\] .*b\.cpp \(2 diagnostics, compile-error, "
                                   r"1\.2 s, cached\)$")
        self.assertEqual(lines[3], "a note")

    def test_none_prints_only_messages(self):
        with captured_stderr() as err:
            p = Progress("none", 1)
            p.file_done(result("/x/a.cpp", 0))
            p.start_round(1, 1, "round")
            p.message("m")
        self.assertEqual(err.getvalue(), "m\n")
