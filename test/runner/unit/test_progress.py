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

    def test_pch_note_rejected_is_a_note_unless_quiet_other_notes_only_verbose(self):
        seen = []
        verbose = lambda f, m: seen.append((f, m))
        with captured_stderr() as err:
            p = Progress("none", 1)
            p.pch_note("/x/a.cpp", "", False, verbose)
            p.pch_note("/x/a.cpp", "PCH rejected: stale file", False, verbose)
            p.pch_note("/x/b.cpp", "PCH rejected: stale file", True, verbose)
            p.pch_note("/x/c.cpp", "PCH not used: macros first", False, verbose)
        self.assertRegex(err.getvalue(), r"^run-torch-tidy: note: .*a\.cpp: precompiled header rejected, "
                                         r"analysed without it: stale file\n$")
        self.assertEqual(seen, [("/x/b.cpp", "PCH rejected: stale file"),
                                ("/x/c.cpp", "PCH not used: macros first")])
