from runner_unit import TempDirTest, namespace

from torch_tidy_runner import tidy


class TidyTest(TempDirTest):
    def test_parse_output(self):
        text = "\n".join([
            "a.cpp:3:5: warning: loss accumulated [torch-loss-accumulation,-warnings-as-errors]",
            "  total += loss;",
            "    ^",
            "b.h:1:2: note: declared here",
            "  x",
            "error: unknown argument: '-fgcc-only'",
            "c.cpp:9:1: fatal error: 'torch/torch.h' file not found",
            "1 warning generated.",
        ])
        diags = tidy.parse_output(text, "/w")
        self.assertEqual(len(diags), 3)
        d = diags[0]
        self.assertEqual((d["file"], d["line"], d["column"], d["level"], d["check"]),
                         ("/w/a.cpp", 3, 5, "warning", "torch-loss-accumulation"))
        self.assertEqual(d["snippet"], ["  total += loss;", "    ^"])
        self.assertEqual(d["notes"][0]["file"], "/w/b.h")
        self.assertEqual(d["notes"][0]["snippet"], ["  x"])
        self.assertEqual((diags[1]["file"], diags[1]["level"]), (None, "error"))
        self.assertTrue(tidy.UNKNOWN_FLAG_RE.match(diags[1]["message"]))
        self.assertEqual(diags[2]["level"], "error")  # a fatal error is an error
        self.assertEqual(diags[2]["snippet"], ["1 warning generated."])

    def test_tidy_options(self):
        args = namespace(checks="-*,torch-*", config=None, config_file="c.yaml", header_filter=".*",
                         warnings_as_errors=None, extra_arg=["-DX"], extra_arg_before=["-w"],
                         tidy_arg=["--system-headers"])
        self.assertEqual(tidy.tidy_options(args), [
            "--checks=-*,torch-*", "--config-file=c.yaml", "--header-filter=.*",
            "--extra-arg=-DX", "--extra-arg-before=-w", "--system-headers"])

    def test_unknown_flag_forms(self):
        for message, flag in (("unknown argument: '-fx'", "-fx"),
                              ("unknown argument '-fx'; did you mean '-fy'?", "-fx"),
                              ("unsupported option '-mx' for target 'y'", "-mx")):
            m = tidy.UNKNOWN_FLAG_RE.match(message)
            self.assertEqual(next(g for g in m.groups() if g is not None), flag)
