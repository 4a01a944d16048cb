"""What every part of run-torch-tidy shares: its name, the values CMake configured
into the entry point (bin/run-torch-tidy passes them to configure()), the exit
statuses, the one-line error, and writing a file through a rename."""

import hashlib
import os
import re
import sys
import tempfile


PROG = "run-torch-tidy"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_TOOL_FAILURE = 0, 1, 2, 3

# Filled in by configure(), which the entry point calls with what CMake
# (configure_file) wrote into it: project(VERSION), the LLVM it found, and the
# source tree of the build (where build/bin/run-torch-tidy finds docs/checks and
# this package). An unconfigured value keeps its @PLACEHOLDER@. SCRIPT is the
# entry point: the check pages, torch-tidy and CMakeLists.txt are looked for
# relative to its real location, as they were when the runner was one file; by
# default (unit tests) the source tree's tool/run-torch-tidy.
CONFIGURED_VERSION = "@PROJECT_VERSION@"
CONFIGURED_LLVM_VERSION = "@LLVM_PACKAGE_VERSION@"
CONFIGURED_SOURCE_DIR = "@CMAKE_SOURCE_DIR@"
PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
SCRIPT = os.path.join(os.path.dirname(PACKAGE_DIR), "run-torch-tidy")


def configure(script, version, llvm_version, source_dir):
    """Takes the entry point's path and its configured values (see above)."""
    global SCRIPT, CONFIGURED_VERSION, CONFIGURED_LLVM_VERSION, CONFIGURED_SOURCE_DIR, VERSION
    SCRIPT = os.path.realpath(script)
    CONFIGURED_VERSION, CONFIGURED_LLVM_VERSION = version, llvm_version
    CONFIGURED_SOURCE_DIR = source_dir
    VERSION = own_version()


def script_dir():
    """The directory of the entry point (its real location)."""
    return os.path.dirname(os.path.realpath(SCRIPT))


def runner_identity():
    """A hash of the runner's code, the entry point and every module of this
    package: a result cached by another runner is not replayed."""
    h = hashlib.sha256()
    for path in [SCRIPT] + sorted(os.path.join(PACKAGE_DIR, f) for f in os.listdir(PACKAGE_DIR)
                                  if f.endswith(".py")):
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def own_version():
    """torch-tidy's version: CMake's, or for the unconfigured copy in the
    source tree, project(VERSION) of the CMakeLists.txt next to tool/."""
    if not CONFIGURED_VERSION.startswith("@"):
        return CONFIGURED_VERSION
    try:
        with open(os.path.join(script_dir(), "..", "CMakeLists.txt"), encoding="utf-8") as f:
            m = re.search(r"^project\(\s*torch-tidy\s+VERSION\s+([0-9.]+)", f.read(), re.M)
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


VERSION = own_version()


def docs_checks_dir():
    """Directory of the check pages (<check>.md), found relative to the entry
    point: ../docs/checks next to the source tree's tool/,
    ../share/doc/torch-tidy/checks when installed, or the source tree this build
    was configured from."""
    here = script_dir()
    candidates = [os.path.join(here, "..", "docs", "checks"),
                  os.path.join(here, "..", "share", "doc", "torch-tidy", "checks")]
    if not CONFIGURED_SOURCE_DIR.startswith("@"):
        candidates.append(os.path.join(CONFIGURED_SOURCE_DIR, "docs", "checks"))
    for d in candidates:
        if os.path.isdir(d):
            return os.path.normpath(d)
    return None


class InputError(Exception):
    """Bad input: reported as one line, exit status 2."""


def fail(message, status=EXIT_BAD_INPUT):
    sys.stderr.write("%s: error: %s\n" % (PROG, message))
    sys.exit(status)


def unwritable(path):
    """Why PATH cannot be written as an output file, or None."""
    if os.path.isdir(path):
        return "'%s' is a directory" % path
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        return "directory '%s' does not exist" % d
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "'%s' is not writable" % path
    if not os.access(d, os.W_OK | os.X_OK):
        return "directory '%s' is not writable" % d
    return None


def write_if_changed(path, text):
    """Writes text to path through a temporary file renamed into place, unless it
    holds those bytes already. (written, error message or None)."""
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False, None
    except OSError:
        pass
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".%s.tmp-" % os.path.basename(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644 & ~current_umask())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        return False, "cannot write %s: %s" % (path, e.strerror)
    return True, None


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
def sha(data):
    return hashlib.sha256(data).hexdigest()


def run_all(pool, fn, items):
    """fn(item) for every item on the thread pool, waiting for them all (an exception
    in one is raised here); Ctrl-C cancels those that have not started."""
    futures = [pool.submit(fn, i) for i in items]
    try:
        for fut in futures:
            fut.result()
    except KeyboardInterrupt:
        for fut in futures:
            fut.cancel()
        raise
