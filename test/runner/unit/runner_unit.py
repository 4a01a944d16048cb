"""Shared set-up of the unit tests of run-torch-tidy's package (tool/torch_tidy_runner):
the package on sys.path, a temporary directory, argparse-like namespaces, stderr
captured."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import types
import unittest

TOOL = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tool"))
if TOOL not in sys.path:
    sys.path.insert(0, TOOL)
sys.dont_write_bytecode = True


class TempDirTest(unittest.TestCase):
    """A test with self.tmp, a directory removed afterwards, and self.write()."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="runner-unit-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text, mode="w"):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(text)
        return path


def namespace(**kw):
    return types.SimpleNamespace(**kw)


@contextlib.contextmanager
def captured_stderr():
    old, sys.stderr = sys.stderr, io.StringIO()
    try:
        yield sys.stderr
    finally:
        sys.stderr = old
