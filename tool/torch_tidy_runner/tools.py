"""Locating the programs run-torch-tidy drives: torch-tidy and the clang++ of its
LLVM version (for the precompiled header and the cache's preprocessing)."""

import os
import re
import shutil
import subprocess

from . import common
from .common import InputError, PROG


def find_torch_tidy(explicit):
    if explicit:
        path = shutil.which(explicit) if os.sep not in explicit else explicit
        if not path or not os.access(path, os.X_OK):
            raise InputError("torch-tidy binary '%s' not found or not executable" % explicit)
        return os.path.abspath(path)
    beside = os.path.join(common.script_dir(), "torch-tidy")
    if os.access(beside, os.X_OK):
        return beside
    path = shutil.which("torch-tidy")
    if path:
        return path
    raise InputError("torch-tidy not found next to %s or on PATH (pass --torch-tidy)" % PROG)


def llvm_version(binary):
    """('19', '19.1.7') from `binary --version`, or None."""
    try:
        out = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(?:LLVM|clang) version (\d+)\.(\d+)\.(\d+)", out)
    return (m.group(1), m.group(0).split()[-1]) if m else None


def find_pch_clang(explicit, major):
    candidates = [explicit] if explicit else [
        "/usr/lib/llvm-%s/bin/clang++" % major, "clang++-%s" % major, "clang++"]
    for c in candidates:
        path = c if os.sep in c else shutil.which(c)
        if path and os.access(path, os.X_OK):
            v = llvm_version(path)
            if v and v[0] == major:
                return path, None
            if explicit:
                return None, "%s is clang %s, torch-tidy is LLVM %s" % (path, v[1] if v else "?", major)
    return None, "no clang++ of LLVM %s found (pass --clang)" % major
