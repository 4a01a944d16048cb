import os

from runner_unit import TempDirTest, captured_stderr

from torch_tidy_runner import cli, common


class CliTest(TempDirTest):
    def error(self, argv):
        with captured_stderr() as err, self.assertRaises(SystemExit) as e:
            cli.parse_args(argv)
        self.assertEqual(e.exception.code, 2)
        lines = err.getvalue().splitlines()
        self.assertEqual(len(lines), 1)  # one line, never a usage dump
        return lines[0]

    def test_bad_options_are_one_line(self):
        self.assertEqual(self.error(["-j", "-1"]), "run-torch-tidy: error: -j must be a positive number")
        self.assertEqual(self.error(["--summaries-only", "--no-summaries"]),
                         "run-torch-tidy: error: --summaries-only and --no-summaries exclude each other")
        self.assertEqual(self.error(["--summaries-only", "--fix", "--format=json"]),
                         "run-torch-tidy: error: --summaries-only writes no report and applies no fix-its: "
                         "drop --fix and --format")
        self.assertIn("invalid regular expression '('", self.error(["("]))
        self.assertIn("--docs-url must be an absolute http(s) or file URL", self.error(["--docs-url=x"]))
        self.assertEqual(self.error(["--nope"]), "run-torch-tidy: error: unrecognized arguments: --nope (see --help)")
        self.assertEqual(self.error(["--update-baseline"]), "run-torch-tidy: error: --update-baseline needs --baseline=FILE")

    def test_defaults(self):
        args = cli.parse_args(["--cache-dir", self.tmp, "-j", "3"])
        self.assertEqual((args.jobs, args.format, args.pch, args.summaries, args.pch_min_files), (3, "text", True, True, 3))
        self.assertEqual(args.cache_dir, os.path.abspath(self.tmp))

    def test_description_is_the_first_line_of_the_help(self):
        self.assertEqual(cli.DESCRIPTION, "run-torch-tidy: run torch-tidy over a project's compile_commands.json.")
        self.assertEqual(common.PROG, "run-torch-tidy")
