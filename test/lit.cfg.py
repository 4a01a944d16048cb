# lit configuration for torch-tidy's tests (see test/README.md).
import os

import lit.formats

config.name = "torch-tidy"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".cpp", ".test"]
config.excludes = ["Inputs", "runtime"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.torch_tidy_build_root, "test")

build = config.torch_tidy_build_root
src = config.torch_tidy_src_root
tools = config.llvm_tools_dir
config.environment["PATH"] = os.pathsep.join([tools, os.path.join(build, "bin"),
                                              config.environment.get("PATH", os.environ["PATH"])])

runner = os.path.join(src, "test", "check_torch_tidy.py")
clangxx = os.path.join(tools, "clang++")
common = "%s %s --filecheck=%s --clangxx=%s" % (
    config.python_executable, runner, os.path.join(tools, "FileCheck"), clangxx)
plugin = os.path.join(build, "lib", "libTorchTidy.so")
stock_tidy = os.path.join(tools, "clang-tidy")

# %check_torch_tidy: the standalone binary; %check_torch_tidy_plugin: stock
# clang-tidy of the same LLVM with --load.
config.substitutions.append(("%check_torch_tidy_plugin",
                             "%s --tidy=%s --load=%s" % (common, stock_tidy, plugin)))
config.substitutions.append(("%check_torch_tidy",
                             "%s --tidy=%s" % (common, os.path.join(build, "bin", "torch-tidy"))))
config.substitutions.append(("%torch_tidy", os.path.join(build, "bin", "torch-tidy")))
config.substitutions.append(("%stock_clang_tidy", stock_tidy))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src_root", src))
config.substitutions.append(("%build_root", build))
config.substitutions.append(("%examples", os.path.join(src, "examples")))
config.substitutions.append(("%mock_torch", os.path.join(src, "test", "checks", "Inputs")))

# Real LibTorch headers: tests marked `REQUIRES: libtorch`. By default Debian's
# libtorch-dev (1.13); `--param libtorch=2` runs them against LibTorch 2.x
# (scripts/fetch-libtorch2.sh; test/CMakeLists.txt finds it): feature `libtorch2`,
# %libtorch_flags with its two include directories (torch/include and its C++ API
# directory; Debian's first one is /usr/include), its own PCH, and the -std its headers
# require (2.14 and later: C++20; it comes after the tests' -std=c++17 and wins). lit
# then works under build/test-libtorch2, so both runs can go side by side.
_libtorch_major = lit_config.params.get("libtorch", "1")
if _libtorch_major not in ("1", "2"):
    lit_config.fatal("--param libtorch=%s: 1 (Debian's LibTorch, the default) or 2" % _libtorch_major)
_libtorch_base_flags = ""
if _libtorch_major == "2":
    if not getattr(config, "libtorch2_include", ""):
        lit_config.fatal("--param libtorch=2: no LibTorch 2.x headers were configured: run "
                         "scripts/fetch-libtorch2.sh, then CMake again")
    config.test_exec_root = os.path.join(build, "test-libtorch2")
    config.available_features.add("libtorch2")
    _libtorch_base_flags = "-isystem %s " % config.libtorch2_include
    _libtorch_I_base = "-I%s " % config.libtorch2_include
    config.libtorch_include = os.path.join(config.libtorch2_include, "torch", "csrc", "api", "include")
    config.libtorch_pch = config.libtorch2_pch
    _libtorch_std = config.libtorch2_std if config.libtorch2_std != "-std=c++17" else ""
    if _libtorch_std:
        config.available_features.add(config.libtorch2_std.replace("-std=", "libtorch-"))
        _libtorch_base_flags = config.libtorch2_std + " " + _libtorch_base_flags
        _libtorch_I_base = config.libtorch2_std + " " + _libtorch_I_base
    lit_config.note("real-header tests against LibTorch 2.x: %s" % config.libtorch2_include)
else:
    _libtorch_I_base = ""
if config.libtorch_include and os.path.exists(os.path.join(config.libtorch_include, "torch", "torch.h")):
    config.available_features.add("libtorch")
    # The examples' tests apply their check's fix-its and compile the result
    # (`%if examples-fixits %{ ... %}`) unless --param examples_fixits=0: ctest's
    # lit.checks-real against 1.13 passes it when the 2.x run exists, where they run
    # (and lit.fixits applies every fix-it to the examples against 1.13).
    if lit_config.params.get("examples_fixits", "1") != "0":
        config.available_features.add("examples-fixits")
    # LibTorch's headers precompiled once by the build (test/CMakeLists.txt): every
    # real-header test reads them instead of parsing <torch/torch.h> (about 10 s).
    # %libtorch_flags_nopch parses the headers, for the tests that compare the two.
    _nopch = _libtorch_base_flags + "-isystem %s" % config.libtorch_include
    _pch = getattr(config, "libtorch_pch", "")
    config.substitutions.append(("%libtorch_flags_nopch", _nopch))
    if _pch and os.path.exists(_pch):
        config.available_features.add("libtorch-pch")
        config.substitutions.append(("%libtorch_pch", _pch))
        config.substitutions.append(("%libtorch_flags", _nopch + " -include-pch " + _pch))
    else:
        config.substitutions.append(("%libtorch_flags", _nopch))
    config.substitutions.append(("%libtorch_I_flags",
                                 _libtorch_I_base + "-I%s" % config.libtorch_include))
    config.substitutions.append(("%libtorch_include", config.libtorch_include))
    # The major version the real-header tests run against, for a test whose expectations
    # differ (--check-suffixes=,LIBTORCH%libtorch_major: CHECK-MESSAGES-LIBTORCH1 lines hold
    # on 1.13 only).
    config.substitutions.append(("%libtorch_major", _libtorch_major))
    # gen_libtorch_project.py's options for the same headers (test/tools).
    config.substitutions.append(("%libtorch_project_args",
                                 "--include-dir %s" % config.libtorch_include + (
                                     "" if _libtorch_major == "1" else " --base-include %s --std %s" % (
                                         config.libtorch2_include, config.libtorch2_std[len("-std="):]))))
    # fix_compiles_real.py's options for the same headers (test/fixits).
    config.substitutions.append(("%libtorch_fixit_args", "" if _libtorch_major == "1" else
                                 "--base-include %s --std %s" % (
                                     config.libtorch2_include, config.libtorch2_std[len("-std="):])))
# Another clang-tidy (e.g. Debian's default clang-tidy-14) for the plugin's
# version-mismatch guard.
import glob
for other in sorted(glob.glob("/usr/bin/clang-tidy-[0-9]*")):
    if os.path.basename(other) != "clang-tidy-" + config.llvm_version_major:
        config.available_features.add("other-clang-tidy")
        config.substitutions.append(("%other_clang_tidy", other))
        if int(other.rsplit("-", 1)[1]) < int(config.llvm_version_major):
            # A newer plugin in an older clang-tidy: the dynamic loader may refuse it
            # before its own version check runs (plugin/plugin-version-mismatch.test).
            config.available_features.add("other-clang-tidy-older")
        break
# From LLVM 22 on, clang-tidy's default header filter is '.*' (diagnostics from
# every non-system header); before, it was empty (main files only).
if int(config.llvm_version_major) >= 22:
    config.available_features.add("tidy-headers-by-default")
if os.path.exists(os.path.join(build, "bin", "torch-clangd")):
    config.available_features.add("torch-clangd")

# --- Tool tests (test/tools/): torch-clangd and run-torch-tidy -----------------
import shutil

config.substitutions.append(("%torch_clangd", os.path.join(build, "bin", "torch-clangd")))
config.substitutions.append(("%run_torch_tidy", "%s %s" % (
    config.python_executable, os.path.join(build, "bin", "run-torch-tidy"))))
config.substitutions.append(("%lsp_client", "%s %s" % (
    config.python_executable, os.path.join(src, "test", "tools", "Inputs", "lsp_client.py"))))
# Microsoft's SARIF validator (found by CMake; scripts/setup.sh installs it).
if getattr(config, "sarif_multitool", "") and os.access(config.sarif_multitool, os.X_OK):
    config.available_features.add("sarif-multitool")
    config.substitutions.append(("%sarif_multitool", config.sarif_multitool))
# CodeChecker (found by CMake; scripts/setup.sh installs it into build/codechecker-venv)
# and its checker labels directory, which a pip install puts in <prefix>/share/codechecker
# next to <prefix>/bin/CodeChecker (%codechecker_labels is substituted before %codechecker).
if getattr(config, "codechecker", "") and os.access(config.codechecker, os.X_OK):
    _cc_labels = os.path.join(os.path.dirname(os.path.dirname(config.codechecker)),
                              "share", "codechecker", "config", "labels")
    if os.path.isdir(os.path.join(_cc_labels, "analyzers")):
        config.available_features.add("codechecker")
        config.substitutions.append(("%codechecker_labels", _cc_labels))
        config.substitutions.append(("%codechecker", config.codechecker))
    else:
        lit_config.warning("CodeChecker %s: no labels directory %s: the CodeChecker tests are "
                           "UNSUPPORTED" % (config.codechecker, _cc_labels))
for _tool in ("pre-commit", "git", "cmake", "ninja", "nvim"):
    if shutil.which(_tool):
        config.available_features.add(_tool)

# --- run-torch-tidy's result cache -----------------------------------------------
# Off for every test unless the test asks for it (--cache --cache-dir=%t/...): the
# other tests compare real runs (with and without a PCH, before and after --fix)
# and must neither read nor write a cache in the user's home.
config.environment["TORCH_TIDY_NO_CACHE"] = "1"
for _var in ("TORCH_TIDY_CACHE_DIR", "TORCH_TIDY_CACHE_SIZE"):
    config.environment.pop(_var, None)
# --- Install tree and Debian package (test/tools/install-prefix.test, package-deb*.test)
config.substitutions.append(("%llvm_major", config.llvm_version_major))
for _tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps"):
    if shutil.which(_tool):
        config.available_features.add(_tool)
# apt-get can resolve a local package's Depends: it runs and its view of the
# installed and available packages is consistent (CI runs as root after apt-get update).
import subprocess
if shutil.which("apt-get"):
    try:
        if subprocess.run(["apt-get", "--simulate", "-qq", "check"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=120).returncode == 0:
            config.available_features.add("apt-get")
    except (OSError, subprocess.SubprocessError):
        pass
