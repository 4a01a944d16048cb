#!/usr/bin/env python3
"""Check the CI recipes of docs/integration/ci.md.

    ci_workflow.py CI_MD CMAKELISTS RUNNER_HELP

Reads every fenced code block of CI_MD and prints one line per fact checked;
a failed check prints `error: ...` and the exit status is 1:

- every ```yaml block parses (PyYAML when it is installed, else a structural
  check: consistent indentation, `key: value` or `- item` lines);
- the GitHub Actions workflow (the block with `jobs:`) runs in a `debian:12`
  container with bash, checks out with `fetch-depth: 0`, sets git's
  safe.directory, caches the package keyed on TORCH_TIDY_VERSION, builds only
  the target install-files with the runtime tests off, runs `--diff` against
  the pull request's base branch, uploads SARIF with `always()` and skips forks;
  every multi-line `run:` starts with `set -euo pipefail`, and every `run:`
  passes `bash -n`;
- no block uses sudo; every ```sh block passes `bash -n`;
- the release the page pins (vX.Y.Z, torch-tidy_X.Y.Z_amd64.deb) is
  project(VERSION) of CMAKELISTS, and CMAKELISTS defines the target install-files;
- every option the page gives run-torch-tidy is in RUNNER_HELP (its --help).
"""
import os
import re
import subprocess
import sys

FENCE_RE = re.compile(r"^([ \t]*)```([A-Za-z]*)[ \t]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
errors = []


def check(ok, what):
    print(("ok: " if ok else "error: ") + what)
    if not ok:
        errors.append(what)


def blocks(text):
    for m in FENCE_RE.finditer(text):
        indent = m.group(1)
        body = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in m.group(3).splitlines(True))
        yield m.group(2), body


def parse_yaml(body):
    try:
        import yaml
    except ImportError:
        yaml = None
    if os.environ.get("CI_WORKFLOW_NO_YAML"):   # the fallback, for its own test
        yaml = None
    if yaml is not None:
        return yaml.safe_load(body), "PyYAML"
    # Structural check only: indentation by spaces, each line a mapping entry, a
    # list item, a continuation of a block scalar, or a comment.
    block_indent = None
    for n, line in enumerate(body.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if "\t" in line[:indent + 1]:
            raise ValueError("line %d: tab in indentation" % n)
        if block_indent is not None and indent >= block_indent:
            continue
        block_indent = None
        s = line.strip()
        if not (re.match(r"^(- )?[A-Za-z0-9_.$/-]+:( |$)", s) or s.startswith("- ")):
            raise ValueError("line %d: neither 'key: value' nor '- item': %r" % (n, s))
        if re.search(r":\s*[|>][-+]?\s*$", s):
            block_indent = indent + 1
    return None, "structure"


def bash_syntax(script):
    # ${{ ... }} is the workflow's, not bash's.
    script = re.sub(r"\$\{\{.*?\}\}", "EXPR", script)
    p = subprocess.run(["bash", "-n"], input=script.encode(), stderr=subprocess.PIPE)
    return p.returncode == 0, p.stderr.decode().strip()


def main(argv):
    text = open(argv[1], encoding="utf-8").read()
    cmake = open(argv[2], encoding="utf-8").read()
    runner_help = open(argv[3], encoding="utf-8").read()
    version = re.search(r"^project\(torch-tidy VERSION ([0-9.]+)", cmake, re.M).group(1)

    workflow = None
    n_yaml = n_sh = 0
    for lang, body in blocks(text):
        check("sudo" not in body.split(), "no sudo in the %s block starting %r" % (lang or "text", body[:40]))
        if lang == "yaml":
            try:
                data, how = parse_yaml(body)
                n_yaml += 1
            except Exception as e:  # noqa: BLE001 - any parse error is the finding
                check(False, "yaml block starting %r parses: %s" % (body[:40], e))
                continue
            if "jobs:" in body and workflow is None:
                workflow = (data, body, how)
        elif lang == "sh":
            ok, err = bash_syntax(body)
            check(ok, "sh block starting %r: bash -n %s" % (body[:40], err or "passes"))
            n_sh += 1
    print("yaml blocks parsed: %d (%s)" % (n_yaml, workflow[2] if workflow else "-"))
    print("sh blocks: %d" % n_sh)
    check(workflow is not None, "the page has a GitHub Actions workflow")
    if workflow is None:
        return 1
    data, body, how = workflow

    if data is not None:
        env = data.get("env", {})
        job = next(iter(data["jobs"].values()))
        container = job.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        check(image == "debian:12", "the job runs in the debian:12 container")
        check(job.get("defaults", {}).get("run", {}).get("shell") == "bash", "its run steps use bash")
        check(env.get("TORCH_TIDY_VERSION") == "v" + version,
              "TORCH_TIDY_VERSION is v%s (project(VERSION))" % version)
        check(bool(env.get("TORCH_TIDY_REPO")), "TORCH_TIDY_REPO is set")
        steps = job["steps"]
        checkout = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
        check(len(checkout) == 1 and checkout[0].get("with", {}).get("fetch-depth") == 0,
              "actions/checkout with fetch-depth: 0")
        caches = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
        check(any("TORCH_TIDY_VERSION" in str(s.get("with", {}).get("key")) for s in caches),
              "the package cache is keyed on TORCH_TIDY_VERSION")
        uploads = [s for s in steps if "upload-sarif" in str(s.get("uses", ""))]
        check(len(uploads) == 1 and "always()" in str(uploads[0].get("if"))
              and "head.repo.full_name" in str(uploads[0].get("if")),
              "the SARIF upload runs always() and skips pull requests from forks")
        runs = [s["run"] for s in steps if "run" in s]
        for r in runs:
            lines = [l for l in r.strip().splitlines() if l.strip()]
            if len(lines) > 1:
                check(lines[0].strip() == "set -euo pipefail",
                      "run script %r starts with set -euo pipefail" % lines[0][:40])
            ok, err = bash_syntax(r)
            check(ok, "run script %r: bash -n %s" % (lines[0][:40], err or "passes"))
        scripts = "\n".join(runs)
    else:
        # Without PyYAML: the same facts from the text.
        check(re.search(r"^\s+container: debian:12\s*$", body, re.M) is not None,
              "the job runs in the debian:12 container")
        check(re.search(r"^\s+shell: bash\b", body, re.M) is not None, "its run steps use bash")
        check(re.search(r"^\s+TORCH_TIDY_VERSION: v%s\s*$" % re.escape(version), body, re.M) is not None,
              "TORCH_TIDY_VERSION is v%s (project(VERSION))" % version)
        check(re.search(r"^\s+TORCH_TIDY_REPO: \S+", body, re.M) is not None, "TORCH_TIDY_REPO is set")
        check(re.search(r"uses: actions/checkout@\S+\s+with:\s+fetch-depth: 0\b", body) is not None,
              "actions/checkout with fetch-depth: 0")
        check(re.search(r"key: .*TORCH_TIDY_VERSION", body) is not None,
              "the package cache is keyed on TORCH_TIDY_VERSION")
        check(re.search(r"always\(\)", body) is not None and "head.repo.full_name" in body,
              "the SARIF upload runs always() and skips pull requests from forks")
        for m in re.finditer(r"^(\s+)run: \|\n((?:\1  .*\n|\s*\n)+)", body, re.M):
            script = "\n".join(l[len(m.group(1)) + 2:] for l in m.group(2).splitlines())
            first = script.strip().splitlines()[0]
            check(first.strip() == "set -euo pipefail",
                  "run script %r starts with set -euo pipefail" % first[:40])
            ok, err = bash_syntax(script)
            check(ok, "run script %r: bash -n %s" % (first[:40], err or "passes"))
        scripts = body
    check("safe.directory" in scripts, "git's safe.directory is set for the checkout")
    check(re.search(r"-DTORCH_TIDY_BUILD_RUNTIME_TESTS=OFF", scripts) is not None
          and re.search(r"--target install-files\b", scripts) is not None,
          "the package build configures without the runtime tests and builds install-files")
    check(re.search(r'--diff "origin/\$GITHUB_BASE_REF"', scripts) is not None,
          "run-torch-tidy --diff against the pull request's base branch")
    check(re.search(r"--baseline \.torch-tidy-baseline\.json", scripts) is not None,
          "run-torch-tidy --baseline .torch-tidy-baseline.json")

    # The pinned release everywhere on the page, and the target the recipe builds.
    tags = set(re.findall(r"\bv(\d+\.\d+\.\d+)\b", text))
    debs = set(re.findall(r"torch-tidy_(\d+\.\d+\.\d+)_amd64\.deb", text))
    check(tags == {version}, "every release tag on the page is v%s (found %s)"
          % (version, ", ".join(sorted("v" + t for t in tags)) or "none"))
    check(debs <= {version}, "every package file name on the page is torch-tidy_%s_amd64.deb" % version)
    check(re.search(r"^add_custom_target\(install-files\b", cmake, re.M) is not None,
          "CMakeLists.txt defines the target install-files")

    # Every run-torch-tidy option the page uses exists: on command lines (links
    # and code spans' markup dropped) and in the workflow's args arrays.
    used = set()
    plain = re.sub(r"\]\([^)]*\)", "]", text)
    for line in re.findall(r"run-torch-tidy(?: +[^\s`]+)+", plain):
        used.update(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", line))
    for arr in re.findall(r"args\+?=\(([^)]*)\)", scripts):
        used.update(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", arr))
    missing = sorted(o for o in used if not re.search(r"(?<![\w-])%s\b" % re.escape(o), runner_help))
    check(not missing, "run-torch-tidy knows every option the page uses: %s%s"
          % (" ".join(sorted(used)), "; missing " + ", ".join(missing) if missing else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
