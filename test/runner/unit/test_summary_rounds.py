import os

from runner_unit import TempDirTest, namespace

from torch_tidy_runner import summary_rounds as sr


class RoundsTest(TempDirTest):
    def tidy(self, help_text):
        path = self.write("tidy", "#!/bin/sh\necho '%s'\n" % help_text)
        os.chmod(path, 0o755)
        return path

    def test_summaries_wanted(self):
        good = self.tidy("--summaries=<file> --export-summaries=<file>")
        two = [object(), object()]
        self.assertEqual(sr.summaries_wanted(namespace(summaries=False, summaries_only=False), good, two),
                         (False, "--no-summaries"))
        self.assertEqual(sr.summaries_wanted(namespace(summaries=True, summaries_only=False), good, two[:1]),
                         (False, "only one file is analysed"))
        self.assertEqual(sr.summaries_wanted(namespace(summaries=True, summaries_only=True), good, two[:1]),
                         (True, None))  # --summaries-only: even one file
        old = self.tidy("--checks=<string>")
        self.assertEqual(sr.summaries_wanted(namespace(summaries=True, summaries_only=False), old, two),
                         (False, "%s has no --export-summaries option" % old))

    def test_summary_info_defaults(self):
        info = sr.SummaryInfo()
        self.assertTrue(info.settled)
        self.assertEqual((info.rounds, info.analyses, info.error), (0, 0, None))
