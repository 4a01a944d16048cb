import json
import os

from runner_unit import TempDirTest, namespace

from torch_tidy_runner import reports


def diag(file, line, col=1, level="warning", check="torch-x", message="m", notes=()):
    return {"file": file, "line": line, "column": col, "level": level, "check": check, "message": message,
            "notes": list(notes), "snippet": ["  code"]}


class ReportsTest(TempDirTest):
    def test_unique_and_sorted(self):
        r1 = namespace(diagnostics=[diag("/p/h.h", 3), diag("/p/a.cpp", 9)])
        r2 = namespace(diagnostics=[diag("/p/h.h", 3), diag("/p/a.cpp", 2), diag(None, 0, level="error")])
        out = reports.unique_diagnostics([r1, r2])
        self.assertEqual([(d["file"], d["line"]) for d in out], [(None, 0), ("/p/a.cpp", 2), ("/p/a.cpp", 9),
                                                                  ("/p/h.h", 3)])

    def test_text_report(self):
        note = {"file": os.path.join(os.getcwd(), "n.h"), "line": 1, "column": 2, "level": "note",
                "message": "here", "snippet": []}
        text = reports.text_report([diag(os.path.join(os.getcwd(), "a.cpp"), 4, 5, notes=[note])])
        self.assertEqual(text, "a.cpp:4:5: warning: m [torch-x]\n  code\nn.h:1:2: note: here\n")
        self.assertEqual(reports.text_report([]), "")

    def test_json_report(self):
        res = namespace(entry=namespace(file="/p/a.cpp"), status="ok", pch=True, seconds=1.234, cached=False)
        data = json.loads(reports.json_report([diag("/p/a.cpp", 1)], [res], "/p", "/bin/torch-tidy", 2.25))
        self.assertEqual(data["summary"], {"files": 1, "warnings": 1, "errors": 0, "filesWithPch": 1,
                                           "seconds": 2.2})
        self.assertEqual(data["files"], [{"file": "a.cpp", "status": "ok", "pch": True, "seconds": 1.23,
                                          "cached": False}])
        self.assertEqual(data["diagnostics"][0]["file"], "a.cpp")

    def test_rel(self):
        self.assertEqual(reports.rel("/p/x/a.cpp", "/p"), "x/a.cpp")
        self.assertEqual(reports.rel("/px/a.cpp", "/p"), "/px/a.cpp")

    def test_source_lines(self):
        path = self.write("u.cpp", "int \u00e9\U0001F600 = 1;\nsecond\n")
        src = reports.SourceLines()
        self.assertEqual(src.line(path, 2), b"second")
        self.assertIsNone(src.line(path, 9))
        self.assertEqual(src.column(path, 1, 1 + len("int \u00e9\U0001F600 ".encode())), 9)  # bytes -> UTF-16
        self.assertEqual(src.position(path, len("int \u00e9\U0001F600 = 1;\n".encode()) + 2), (2, 3))
