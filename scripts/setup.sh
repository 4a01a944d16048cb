#!/usr/bin/env bash
# torch-tidy set-up on a fresh Debian 12 machine (run as root, or with sudo available).
#
#   scripts/setup.sh demo   install the Debian packages, build only bin/torch-tidy, and run it
#                           over the bundled buggy examples (examples/*/buggy.cpp): you see
#                           real diagnostics first; then it says how to build the rest
#   scripts/setup.sh test   install dependencies (Debian packages, the SARIF validator from
#                           npm, CodeChecker from PyPI into build/codechecker-venv, LibTorch
#                           2.x's headers, libraries and CUDA runtime from PyPI's torch wheel
#                           into build/libtorch2: about 2.5 GB once), build everything, and
#                           run the whole test suite (ctest) against LibTorch 1.13 and 2.x
#   scripts/setup.sh quick  the loop while editing a check: build bin/torch-tidy and the
#                           plugin, then run the mock-header check tests and the unit tests
#                           (ctest -L quick; no LibTorch parse; under two minutes when built)
#   scripts/setup.sh libtorch2  opt-in, downloads about 530 MB once: fetch LibTorch 2.x's
#                           headers from PyPI's torch wheel (scripts/fetch-libtorch2.sh; the
#                           version is in scripts/libtorch2-version.txt) into
#                           build/libtorch2/, build bin/torch-tidy, and run the real-header
#                           check tests and the examples' tests against them (ctest -L libtorch2)
#   scripts/setup.sh cuda   the runtime suite against a PyTorch installation's LibTorch (on a
#                           machine with a GPU: the CUDA-only tests run there): the torch of
#                           TORCH_PYTHON (default python3), or with TORCH_SITE=<dir holding
#                           torch/ and nvidia/> that one; builds bin/torch-tidy and the
#                           runtime-libtorch2 suite against it, runs it (ctest -L libtorch2
#                           -R runtime-libtorch2) and prints what ran, passed, failed and was
#                           skipped, the CUDA-only tests apart (docs/runtime-evidence.md)
#   scripts/setup.sh build  install the Debian packages and build everything
#   scripts/setup.sh package  install the Debian packages, build what the package holds (target
#                           install-files: the programs, the plugin, docs and man pages; no test
#                           programs), and make it (build/torch-tidy_<version>_<arch>.deb, CPack)
#
# Environment: BUILD_DIR (default: build), TORCH_TIDY_LLVM_VERSION (default: 19),
#              SKIP_APT=1 to skip the package installation,
#              JOBS=N to build with N parallel jobs (default: Ninja's own choice).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
case "$mode" in
  demo|quick|test|build|package|libtorch2|cuda) ;;
  *) echo "usage: scripts/setup.sh demo|quick|test|build|package|libtorch2|cuda" >&2; exit 2 ;;
esac
build_dir=${BUILD_DIR:-"$here/build"}
llvm=${TORCH_TIDY_LLVM_VERSION:-19}

install_packages() {
  local pkgs
  pkgs=$(grep -v '^\s*#' "$here/scripts/debian-packages.txt" | tr -s ' \n' ' ')
  if [ "$llvm" != 19 ]; then
    pkgs=$(echo "$pkgs" | sed "s/-19\b/-$llvm/g")
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  # Only run apt when something is missing: a second run is quick.
  local missing=""
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "==> installing Debian packages:$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
  fi
}

# Microsoft's SARIF validator (npm @microsoft/sarif-multitool), which the test
# suite runs on run-torch-tidy's SARIF (test/tools/run-torch-tidy-sarif-validator.test).
# Installed into the build directory; CMake finds it there. For `test` it is
# required: a CI run must not skip that test because the validator is missing.
sarif_version=5.7.0
sarif_dir="$build_dir/sarif-multitool"
sarif_bin="$sarif_dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
install_sarif_multitool() {
  if [ -x "$sarif_bin" ] && grep -q "\"version\": \"$sarif_version\"" \
       "$sarif_dir/node_modules/@microsoft/sarif-multitool-linux/package.json" 2>/dev/null; then
    return
  fi
  if ! command -v npm >/dev/null; then
    echo "setup.sh: error: npm not found: install the Debian package 'npm' (it brings Microsoft's SARIF validator)" >&2
    exit 2
  fi
  echo "==> installing @microsoft/sarif-multitool $sarif_version (npm) into $sarif_dir"
  mkdir -p "$sarif_dir"
  (cd "$sarif_dir" && npm install --silent --no-audit --no-fund --no-save \
     "@microsoft/sarif-multitool@$sarif_version" >/dev/null)
  chmod u+x "$sarif_bin"
}

# CodeChecker (PyPI `codechecker`, the version pinned in scripts/codechecker-version.txt),
# which the test suite runs torch-tidy under (test/tools/codechecker.test). Installed
# into a venv in the build directory, never into the system Python; CMake finds it
# there. For `test` it is required, like the SARIF validator.
codechecker_version=$(grep -m1 '^[0-9]' "$here/scripts/codechecker-version.txt" | tr -d ' \r')
codechecker_venv="$build_dir/codechecker-venv"
codechecker_bin="$codechecker_venv/bin/CodeChecker"
install_codechecker() {
  if [ -x "$codechecker_bin" ] && "$codechecker_venv/bin/python3" -c \
       'import importlib.metadata as m, sys; sys.exit(m.version("codechecker") != sys.argv[1])' \
       "$codechecker_version" 2>/dev/null; then
    return
  fi
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "setup.sh: error: python3 cannot make a venv: install the Debian package 'python3-venv' (CodeChecker is installed into one)" >&2
    exit 2
  fi
  echo "==> installing CodeChecker $codechecker_version (pip, PyPI) into $codechecker_venv"
  rm -rf "$codechecker_venv"
  local t0=$SECONDS
  if ! python3 -m venv "$codechecker_venv" ||
     ! "$codechecker_venv/bin/pip" install --quiet --disable-pip-version-check \
         "codechecker==$codechecker_version"; then
    echo "setup.sh: error: could not install codechecker==$codechecker_version from PyPI into" \
         "$codechecker_venv (is PyPI reachable? pip reads PIP_INDEX_URL and HTTPS_PROXY);" \
         "the test suite requires it (test/tools/codechecker.test)" >&2
    rm -rf "$codechecker_venv"
    exit 2
  fi
  echo "    CodeChecker installed in $((SECONDS - t0)) s"
}

[ "${SKIP_APT:-0}" = 1 ] || [ "$mode" = quick ] || install_packages
# Wall time of each step, for the table `test` prints at the end.
steps=()
step_start=0
start_step() { step_start=$(date +%s%N); }
end_step() {
  local ms=$((($(date +%s%N) - step_start) / 1000000))
  steps+=(--step "$1=$((ms / 1000)).$(printf %03d $((ms % 1000)))")
}

[ "$mode" != libtorch2 ] || bash "$here/scripts/fetch-libtorch2.sh" "$build_dir"
fetch_pid=""
if [ "$mode" = test ]; then
  # LibTorch 2.x beside Debian's 1.13: its headers for the real-header tests, its
  # libraries and CUDA runtime for the runtime suite (about 2.5 GB from PyPI, once).
  # In the background while npm and pip install the SARIF validator and CodeChecker
  # (below): the three are mostly waiting on the network.
  start_step
  mkdir -p "$build_dir"
  bash "$here/scripts/fetch-libtorch2.sh" --libraries "$build_dir" >"$build_dir/fetch-libtorch2.log" 2>&1 &
  fetch_pid=$!
fi
torch_site=""
if [ "$mode" = cuda ]; then
  torch_site=${TORCH_SITE:-}
  if [ -z "$torch_site" ]; then
    py=${TORCH_PYTHON:-python3}
    torch_site=$("$py" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null) || {
      echo "setup.sh: error: no PyTorch in $py (import torch failed): set TORCH_PYTHON=<python with torch> or TORCH_SITE=<dir holding torch/>, or fetch one with scripts/fetch-libtorch2.sh --libraries and TORCH_SITE=build/libtorch2/<version>" >&2
      exit 2
    }
  fi
  torch_site=$(cd "$torch_site" 2>/dev/null && pwd) || {
    echo "setup.sh: error: TORCH_SITE=${TORCH_SITE:-}: no such directory" >&2
    exit 2
  }
  if [ ! -f "$torch_site/torch/lib/libtorch_cpu.so" ] || [ ! -d "$torch_site/torch/include" ]; then
    echo "setup.sh: error: $torch_site/torch has no LibTorch (lib/libtorch_cpu.so and include/): not a PyTorch installation" >&2
    exit 2
  fi
  echo "==> LibTorch of the PyTorch in $torch_site"
fi

cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DTORCH_TIDY_LLVM_VERSION="$llvm")
if [ "$mode" = test ]; then
  install_sarif_multitool
  cmake_args+=(-DTORCH_TIDY_SARIF_MULTITOOL="$sarif_bin" -DTORCH_TIDY_REQUIRE_SARIF_MULTITOOL=ON)
  install_codechecker
  cmake_args+=(-DTORCH_TIDY_CODECHECKER="$codechecker_bin" -DTORCH_TIDY_REQUIRE_CODECHECKER=ON)
  fetch_status=0
  wait "$fetch_pid" || fetch_status=$?
  cat "$build_dir/fetch-libtorch2.log"
  if [ "$fetch_status" != 0 ]; then
    echo "setup.sh: error: scripts/fetch-libtorch2.sh --libraries failed ($fetch_status): the test suite runs against LibTorch 2.x too" >&2
    exit 2
  fi
  end_step "dependencies (LibTorch 2.x, CodeChecker, SARIF validator)"
  # The suite runs no standalone example program (build/examples/<check>/{buggy,fixed}):
  # the runtime tests link the same sources, and lit compiles each example whole
  # (fixits-compile-real). `cmake --build` without this option builds them for users.
  cmake_args+=(-DTORCH_TIDY_BUILD_EXAMPLE_PROGRAMS=OFF)
  # The suite CI runs (README, "Which LibTorch versions are tested"): the 2.x fix-it
  # compilation entry stays off even where an earlier `libtorch2` run turned it on.
  cmake_args+=(-DTORCH_TIDY_LIBTORCH2_FIXITS=OFF)
fi
[ "$mode" != libtorch2 ] || cmake_args+=(-DTORCH_TIDY_LIBTORCH2_FIXITS=ON)
start_step
if [ "$mode" = cuda ]; then
  echo "==> configuring $build_dir against $torch_site/torch"
  cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" -DTORCH_TIDY_BUILD_EXAMPLE_PROGRAMS=OFF \
    -DTORCH_TIDY_LIBTORCH2_INCLUDE="$torch_site/torch/include" >/dev/null
elif [ "$mode" = quick ] && [ -f "$build_dir/CMakeCache.txt" ]; then
  : # configured already: keep the build directory's own options
elif [ "$mode" = libtorch2 ] && [ -f "$build_dir/CMakeCache.txt" ]; then
  echo "==> configuring $build_dir again (it finds build/libtorch2)"
  cmake "$build_dir" -DTORCH_TIDY_LIBTORCH2_FIXITS=ON >/dev/null
else
  echo "==> configuring $build_dir (LLVM $llvm)"
  cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" >/dev/null
fi
end_step configure
build_args=()
[ -z "${JOBS:-}" ] || build_args+=(-j "$JOBS")
start_step
if [ "$mode" = demo ]; then
  echo "==> building bin/torch-tidy (only what the demo needs)"
  cmake --build "$build_dir" --target torch-tidy "${build_args[@]}"
elif [ "$mode" = libtorch2 ]; then
  echo "==> building bin/torch-tidy and LibTorch 2.x's PCH for the tests"
  cmake --build "$build_dir" --target torch-tidy torch-tidy-test-pch-libtorch2 "${build_args[@]}"
elif [ "$mode" = cuda ]; then
  echo "==> building bin/torch-tidy and the runtime suite against $torch_site/torch"
  cmake --build "$build_dir" --target torch-tidy runtime-tests-libtorch2 "${build_args[@]}"
elif [ "$mode" = quick ]; then
  echo "==> building bin/torch-tidy and the plugin"
  cmake --build "$build_dir" --target torch-tidy TorchTidy "${build_args[@]}"
elif [ "$mode" = package ]; then
  echo "==> building what the package holds (target install-files)"
  cmake --build "$build_dir" --target install-files "${build_args[@]}"
else
  echo "==> building"
  cmake --build "$build_dir" "${build_args[@]}"
fi
end_step build

case "$mode" in
  demo)
    echo "==> torch-tidy over the bundled buggy examples"
    inc=/usr/include/torch/csrc/api/include
    status=0
    for f in "$here"/examples/*/buggy.cpp; do
      check=$(basename "$(dirname "$f")")
      echo "--- $check: ${f#"$here"/}"
      "$build_dir/bin/torch-tidy" --quiet --checks="-*,$check" "$f" -- -std=c++17 -isystem "$inc" || status=$?
    done
    rel_build=${build_dir#"$PWD"/}
    echo "==> done: the warnings above are torch-tidy's ($rel_build/bin/torch-tidy)."
    echo "    The rest (torch-clangd for editors, the plugin, run-torch-tidy, the test programs):"
    echo "      cmake --build $rel_build          # or: scripts/setup.sh build"
    echo "    The test suite: scripts/setup.sh test"
    ;;
  quick)
    echo "==> the quick tests (ctest -L quick: mock-header checks, units)"
    cd "$build_dir"
    ctest --output-on-failure -L quick -j "${JOBS:-2}"
    ;;
  libtorch2)
    echo "==> the real-header check tests against LibTorch $(cat "$here/scripts/libtorch2-version.txt") (ctest -L libtorch2)"
    cd "$build_dir"
    ctest --output-on-failure -L libtorch2
    ;;
  cuda)
    echo "==> the runtime suite against $torch_site/torch (ctest -L libtorch2 -R runtime-libtorch2)"
    cd "$build_dir"
    set +e
    ctest --output-on-failure -j "${JOBS:-2}" -L libtorch2 -R '^runtime-libtorch2[.]' \
      --output-junit "$build_dir/runtime-cuda.xml"
    status=$?
    set -e
    python3 "$here/scripts/runtime_summary.py" "$build_dir/runtime-cuda.xml"
    exit "$status"
    ;;
  test)
    echo "==> running the test suite"
    cd "$build_dir"
    # Each ctest entry has its own timeout (test/lit-parts.txt, test/runtime/).
    # suite_table.py passes ctest's output through and prints the time of each part
    # before ctest's closing summary (also written to build/suite-times.md).
    set +e
    ctest --output-on-failure -j "${JOBS:-2}" \
      | python3 "$here/scripts/suite_table.py" "${steps[@]}" --out "$build_dir/suite-times.md"
    status=${PIPESTATUS[0]}
    set -e
    exit "$status"
    ;;
  package)
    echo "==> making the Debian package"
    cd "$build_dir"
    cpack -G DEB
    # Root runs apt-get itself; anyone else needs sudo (install_packages does the same).
    as_root=""
    if [ "$(id -u)" != 0 ]; then as_root="sudo "; fi
    echo "==> install it with: ${as_root}apt-get install $build_dir/$(ls -t torch-tidy_*.deb | head -1)"
    ;;
esac
