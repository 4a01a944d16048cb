import os

from runner_unit import TempDirTest

from torch_tidy_runner import common, sarif_rules as sr

PAGE = """# torch-demo

Finds **demo** code that `does` things, e.g. this. And more.

| a | b |
| --- | --- |

## Why

The first reason. The second reason introduces code:

```cpp
x();
```

## Fix-it

Adds a [guard](other.md).
"""


class RulesTest(TempDirTest):
    def tearDown(self):
        common.configure(os.path.join(common.PACKAGE_DIR, "..", "run-torch-tidy"),
                         "@PROJECT_VERSION@", "@LLVM_PACKAGE_VERSION@", "@CMAKE_SOURCE_DIR@")

    def test_sentences_and_inline_text(self):
        self.assertEqual(sr.sentences("One, e.g. `a. b` here. Two! Three"), ["One, e.g. `a. b` here.", "Two!", "Three"])
        self.assertEqual(sr.inline_plain("a **b** `c*d*` [e](f.md) *g*"), "a b c*d* e g")
        self.assertEqual(sr.first_sentence("Introduces a table:\n\n| a |\n"), "Introduces a table.")
        self.assertEqual(sr.camel_name("torch-load-without-device"), "TorchLoadWithoutDevice")
        self.assertEqual(sr.markdown_sections(PAGE)["fix-it"], "Adds a [guard](other.md).")

    def test_rule_from_the_page(self):
        self.write("docs/checks/torch-demo.md", PAGE)
        os.makedirs(os.path.join(self.tmp, "tool"))
        common.configure(os.path.join(self.tmp, "tool", "run-torch-tidy"), "1.0.0", "19.1.7", "@CMAKE_SOURCE_DIR@")
        rule = sr.sarif_rule("torch-demo", "warning", "https://example.com/docs/checks")
        self.assertEqual(rule["shortDescription"]["text"], "Finds demo code that does things, e.g. this.")
        self.assertEqual(rule["fullDescription"]["text"],
                         "Finds demo code that does things, e.g. this. And more. The first reason.")
        self.assertIn("[guard](https://example.com/docs/checks/other.md)", rule["help"]["markdown"])
        self.assertEqual(rule["helpUri"], "https://example.com/docs/checks/torch-demo.md")
        self.assertEqual(rule["properties"]["precision"], "high")

    def test_rules_without_a_page(self):
        os.makedirs(os.path.join(self.tmp, "bin"))
        common.configure(os.path.join(self.tmp, "bin", "run-torch-tidy"), "1.0.0", "19.1.7", "@CMAKE_SOURCE_DIR@")
        torch = sr.sarif_rule("torch-demo", "warning", None)
        self.assertEqual(torch["shortDescription"]["text"], "The torch-tidy check torch-demo.")
        self.assertNotIn("helpUri", torch)
        clang = sr.sarif_rule("clang-diagnostic-unused-variable", "warning", None)
        self.assertEqual(clang["shortDescription"]["text"], "The clang compiler warning -Wunused-variable.")
        tidy = sr.sarif_rule("bugprone-use-after-move", "warning", None)
        self.assertEqual(tidy["helpUri"], "https://clang.llvm.org/extra/clang-tidy/checks/bugprone/use-after-move.html")
