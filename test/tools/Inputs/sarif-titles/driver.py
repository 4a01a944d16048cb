#!/usr/bin/env python3
"""usage: driver.py REPORT.sarif

Prints the version fields of the SARIF run's tool.driver (a missing one as
'-'), then the start of its fullName up to the LLVM version:

    version=<v> semanticVersion=<v> fullName=torch-tidy <v> (LLVM"""
import json
import sys

driver = json.load(open(sys.argv[1], encoding="utf-8"))["runs"][0]["tool"]["driver"]
print("version=%s semanticVersion=%s fullName=%s" % (
    driver.get("version", "-"), driver.get("semanticVersion", "-"),
    driver.get("fullName", "-").split(" (LLVM")[0] + " (LLVM" if " (LLVM" in driver.get("fullName", "") else "-"))
