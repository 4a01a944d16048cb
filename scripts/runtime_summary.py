#!/usr/bin/env python3
"""Summarise a ctest JUnit file (ctest --output-junit) of the runtime suite.

    scripts/runtime_summary.py build/runtime-cuda.xml

Prints how many tests ran, passed, failed and were skipped, and the same for the
CUDA-only tests apart (the GoogleTest tests whose body calls TORCH_TIDY_REQUIRE_CUDA()
or TORCH_TIDY_REQUIRE_CUDA_ALLOCATOR_STATS(), test/runtime/RuntimeSupport.h, read from
test/runtime/*.cpp), then the names of the failed tests and of the skipped CUDA-only ones. Exit status 0; ctest's own status says
whether the run passed. Used by `scripts/setup.sh cuda`.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

RUNTIME_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "runtime")
TEST_RE = re.compile(r"^TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)


def cuda_only_tests(runtime_dir=RUNTIME_DIR):
    """Suite.Name of every test whose body requires CUDA."""
    names = set()
    for path in glob.glob(os.path.join(runtime_dir, "*.cpp")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        heads = list(TEST_RE.finditer(text))
        for i, head in enumerate(heads):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            if "TORCH_TIDY_REQUIRE_CUDA" in text[head.end():end]:
                names.add(head.group(1) + "." + head.group(2))
    return names


def test_id(ctest_name):
    """Suite.Name of a ctest name: runtime[-libtorch2].[autofix.]Suite.Name, with
    Prefix/Suite.Name/param for a parameterised test, and GoogleTest's "  # GetParam()"."""
    name = re.sub(r"^runtime(-[\w]+)?\.(autofix\.)?", "", ctest_name.split(" ")[0])
    suite, _, test = name.partition(".")
    return suite.split("/")[-1] + "." + test.split("/")[0]


def summarise(path, cuda_only):
    root = ET.parse(path).getroot()
    cases = root.iter("testcase")
    counts = {"all": [0, 0, 0, 0], "cuda": [0, 0, 0, 0]}  # ran, passed, failed, skipped
    failed, cuda_skipped = [], []
    for case in cases:
        name = case.get("name", "")
        status = case.get("status", "")
        if case.find("skipped") is not None or status in ("notrun", "disabled"):
            kind = 3
        elif case.find("failure") is not None or case.find("error") is not None or status == "fail":
            kind = 2
            failed.append(name)
        else:
            kind = 1
        cuda = test_id(name) in cuda_only
        groups = ["all"] + (["cuda"] if cuda else [])
        for g in groups:
            if kind != 3:
                counts[g][0] += 1
            counts[g][kind] += 1
        if kind == 3 and cuda:
            cuda_skipped.append(name)
    return counts, failed, cuda_skipped


def main(argv):
    if len(argv) != 2:
        print("usage: runtime_summary.py CTEST_JUNIT.xml", file=sys.stderr)
        return 2
    try:
        counts, failed, cuda_skipped = summarise(argv[1], cuda_only_tests())
    except (OSError, ET.ParseError) as e:
        print(f"runtime_summary.py: error: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    for label, key in (("all runtime tests", "all"), ("CUDA-only tests", "cuda")):
        ran, passed, fail, skipped = counts[key]
        print(f"==> {label}: {ran} ran, {passed} passed, {fail} failed, {skipped} skipped")
    for name in failed:
        print(f"    failed: {name}")
    for name in cuda_skipped:
        print(f"    skipped (no usable GPU): {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
