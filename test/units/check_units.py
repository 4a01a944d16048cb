#!/usr/bin/env python3
"""A check is one unit: every registered torch-* check has all its parts.

For every check the built tool registers (asked with `--list-checks`, from the
standalone binary or from stock clang-tidy with the plugin loaded) this
requires, below the source root:

  docs/checks/<check>.md                 its page
  examples/<check>/buggy.cpp, fixed.cpp  its example pair
  test/checks/<check>[-*].cpp            at least one lit test (a file with a
                                         RUN: line; a file belongs to the longest
                                         registered name it starts with)
  test/runtime/<check>_test.cpp          its runtime proof

and, the other way round, no docs page, example directory or runtime test
without a registered check (an orphan: a renamed or deleted check's leftover).
README.md's check table (the rows under "## Checks" whose first cell is a
`torch-*` name) lists exactly the registered checks, once each, in the order
they are registered, and each row links to the check's page.
checks/TorchTidyModule.cpp registers the same checks as the tool reports (so
its order is the real one: clang-tidy sorts --list-checks by itself), in
alphabetical order.

Each problem is printed on one line, "check_units: <problem>", and the exit
status is 1; with none, one summary line and status 0. --checks-file replaces
the tool's answer by a file with one check name a line (self-tests).
"""

import argparse
import glob
import os
import re
import subprocess
import sys

PREFIX = "check_units: "


def listed_checks(args):
    """Registered torch-* check names, as the tool (or --checks-file) says."""
    if args.checks_file:
        with open(args.checks_file) as f:
            return [line.strip() for line in f if line.strip()]
    cmd = [args.tidy]
    if args.load:
        cmd.append("--load=" + args.load)
    cmd += ["--checks=-*,torch-*", "--list-checks"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, cwd=args.cwd)
    if proc.returncode != 0:
        sys.exit(PREFIX + "%s failed (exit %d):\n%s" % (" ".join(cmd), proc.returncode,
                                                      proc.stderr))
    names = [line.strip() for line in proc.stdout.splitlines()
             if line.startswith(" ") and line.strip().startswith("torch-")]
    if not names:
        sys.exit(PREFIX + "%s lists no torch-* check:\n%s" % (" ".join(cmd), proc.stdout))
    return names


def registration_order(module_path):
    """Check names in the order checks/TorchTidyModule.cpp registers them."""
    with open(module_path) as f:
        text = f.read()
    return re.findall(r'registerCheck<\s*\w+\s*>\(\s*"([^"]+)"\s*\)', text)


def readme_rows(readme_path):
    """(check, docs link or None) for each row of README's check table."""
    rows = []
    in_checks = False
    with open(readme_path) as f:
        for line in f:
            if line.startswith("## "):
                in_checks = line.strip() == "## Checks"
                continue
            if not in_checks:
                continue
            m = re.match(r"\|\s*`(torch-[^`]+)`\s*\|", line)
            if not m:
                continue
            link = re.search(r"\]\(([^)]+)\)\s*\|\s*$", line)
            rows.append((m.group(1), link.group(1) if link else None))
    return rows


def lit_tests_by_check(root, checks):
    """Map each check to its lit tests: test/checks/<check>.cpp or
    <check>-<anything>.cpp with a RUN: line, given to the longest registered
    name that prefixes the file name (torch-foo-bar.cpp belongs to
    torch-foo-bar, not torch-foo, when both are registered)."""
    owned = {c: [] for c in checks}
    by_length = sorted(checks, key=len, reverse=True)
    for path in sorted(glob.glob(os.path.join(root, "test", "checks", "*.cpp"))):
        stem = os.path.basename(path)[:-len(".cpp")]
        owner = next((c for c in by_length if stem == c or stem.startswith(c + "-")), None)
        if owner is None:
            continue
        with open(path, errors="replace") as f:
            if "RUN:" in f.read():
                owned[owner].append(os.path.relpath(path, root))
    return owned


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="the source tree")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tidy", help="torch-tidy, or stock clang-tidy with --load")
    source.add_argument("--checks-file", help="one check name a line instead of asking a tool")
    parser.add_argument("--load", help="plugin for --tidy to load")
    parser.add_argument("--cwd", default=os.getcwd(),
                        help="directory to run --tidy in (default: here)")
    parser.add_argument("--module", help="registration file "
                        "(default: <root>/checks/TorchTidyModule.cpp)")
    parser.add_argument("--readme", help="default: <root>/README.md")
    args = parser.parse_args()

    root = args.root
    module = args.module or os.path.join(root, "checks", "TorchTidyModule.cpp")
    readme = args.readme or os.path.join(root, "README.md")
    problems = []

    listed = listed_checks(args)
    registry = set(listed)
    if len(registry) != len(listed):
        problems.append("the tool lists a check twice: %s" % ", ".join(listed))

    # Registration: the same checks as the tool reports, in alphabetical order.
    registered = registration_order(module)
    for name in sorted(registry - set(registered)):
        problems.append("%s is listed by the tool but not registered in %s"
                        % (name, os.path.relpath(module, root)))
    for name in sorted(set(registered) - registry):
        problems.append("%s is registered in %s but the tool does not list it"
                        % (name, os.path.relpath(module, root)))
    if registered != sorted(registered):
        problems.append("%s registers the checks out of alphabetical order: %s; expected %s"
                        % (os.path.relpath(module, root), ", ".join(registered),
                           ", ".join(sorted(registered))))
    # Listed but unregistered checks still need their parts; they go last.
    order = [c for c in registered if c in registry] + sorted(registry - set(registered))

    # The parts of each check.
    lit = lit_tests_by_check(root, registry)
    for check in order:
        def need(rel, what):
            if not os.path.isfile(os.path.join(root, rel)):
                problems.append("%s has no %s: %s is missing" % (check, what, rel))
        need("docs/checks/%s.md" % check, "docs page")
        need("examples/%s/buggy.cpp" % check, "buggy example")
        need("examples/%s/fixed.cpp" % check, "fixed example")
        need("test/runtime/%s_test.cpp" % check, "runtime test")
        if not lit[check]:
            problems.append("%s has no lit test: no test/checks/%s.cpp or %s-*.cpp that lit runs"
                            % (check, check, check))

    # Orphans: parts whose check is not registered.
    def orphans(pattern, name_of, what):
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            name = name_of(os.path.basename(path.rstrip("/")))
            if name not in registry:
                problems.append("%s %s has no registered check %s"
                                % (what, os.path.relpath(path, root), name))
    orphans("docs/checks/*.md", lambda b: b[:-len(".md")], "docs page")
    orphans("examples/*/", lambda b: b, "example directory")
    orphans("test/runtime/*_test.cpp", lambda b: b[:-len("_test.cpp")], "runtime test")

    # README's table: exactly the registry, once each, in registration order.
    rows = readme_rows(readme)
    names = [name for name, _ in rows]
    if not rows:
        problems.append("README.md has no check table under '## Checks'")
    for name in sorted(registry - set(names)):
        problems.append("README.md's check table has no row for %s" % name)
    for name in sorted(set(names) - registry):
        problems.append("README.md's check table has a row for %s, which is not registered" % name)
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append("README.md's check table lists %s %d times" % (name, names.count(name)))
    common = [n for n in names if n in registry]
    expected = [n for n in order if n in set(names)]
    if common != expected:
        problems.append("README.md's check table is not in registration order: %s; expected %s"
                        % (", ".join(common), ", ".join(expected)))
    for name, link in rows:
        if name in registry and link != "docs/checks/%s.md" % name:
            problems.append("README.md's row for %s links to %s, not docs/checks/%s.md"
                            % (name, link, name))

    if problems:
        for p in problems:
            print(PREFIX + p)
        print(PREFIX + "%d problem(s)" % len(problems))
        return 1
    print(PREFIX + "%d checks, each with its docs page, example pair, lit tests (%d in all) and "
          "runtime test; no orphans; README's table and the registration in alphabetical order: %s"
          % (len(order), sum(len(v) for v in lit.values()), ", ".join(order)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
