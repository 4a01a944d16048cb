import os
import unittest

from runner_unit import TOOL

PACKAGE = os.path.join(TOOL, "torch_tidy_runner")
HERE = os.path.dirname(os.path.abspath(__file__))


class PackageTest(unittest.TestCase):
    def modules(self):
        return sorted(f[:-3] for f in os.listdir(PACKAGE) if f.endswith(".py") and f != "__init__.py")

    def test_every_module_has_its_tests(self):
        missing = [m for m in self.modules() if not os.path.isfile(os.path.join(HERE, "test_%s.py" % m))]
        self.assertEqual(missing, [])

    def test_modules_stay_small(self):
        """One job per module: none grows past 600 lines."""
        for m in self.modules():
            with open(os.path.join(PACKAGE, m + ".py"), encoding="utf-8") as f:
                self.assertLess(len(f.read().splitlines()), 600, m)

    def test_the_module_map_names_every_module(self):
        with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
            doc = f.read()
        self.assertEqual([m for m in self.modules() if "\n  %s " % m not in doc], [])

    def test_no_configured_values_in_the_package(self):
        """CMake configures only the entry point: the installed modules are plain copies."""
        for m in self.modules():
            with open(os.path.join(PACKAGE, m + ".py"), encoding="utf-8") as f:
                text = f.read()
            if m != "common":
                self.assertNotIn("@CMAKE_SOURCE_DIR@", text, m)
