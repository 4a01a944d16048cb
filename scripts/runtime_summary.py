#!/usr/bin/env python3
"""Summarise a ctest JUnit file (ctest --output-junit) of the runtime suite.

    scripts/runtime_summary.py build/runtime-cuda.xml

Prints how many tests ran, passed, failed and were skipped, and the same for the
CUDA-only tests apart (GoogleTest names containing "Cuda": the tests that start with
TORCH_TIDY_REQUIRE_CUDA(), test/runtime/RuntimeSupport.h), then the names of the
failed and of the skipped CUDA-only tests. Exit status 0; ctest's own status says
whether the run passed. Used by `scripts/setup.sh cuda`.
"""
import sys
import xml.etree.ElementTree as ET


def summarise(path):
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
        groups = ["all"] + (["cuda"] if "Cuda" in name else [])
        for g in groups:
            if kind != 3:
                counts[g][0] += 1
            counts[g][kind] += 1
        if kind == 3 and "Cuda" in name:
            cuda_skipped.append(name)
    return counts, failed, cuda_skipped


def main(argv):
    if len(argv) != 2:
        print("usage: runtime_summary.py CTEST_JUNIT.xml", file=sys.stderr)
        return 2
    try:
        counts, failed, cuda_skipped = summarise(argv[1])
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
