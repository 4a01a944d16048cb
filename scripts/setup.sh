#!/usr/bin/env bash
# torch-tidy set-up on a fresh Debian 12 machine (run as root, or with sudo available).
#
#   scripts/setup.sh demo   install dependencies, build, and run torch-tidy over the bundled
#                           buggy examples (examples/*/buggy.cpp): you see real diagnostics
#   scripts/setup.sh test   install dependencies, build, and run the whole test suite (ctest)
#   scripts/setup.sh build  install dependencies and build only
#   scripts/setup.sh package  install dependencies, build, and make the Debian package
#                           (build/torch-tidy_<version>_<arch>.deb, with CPack)
#
# Environment: BUILD_DIR (default: build), TORCH_TIDY_LLVM_VERSION (default: 19),
#              SKIP_APT=1 to skip the package installation.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
case "$mode" in
  demo|test|build|package) ;;
  *) echo "usage: scripts/setup.sh demo|test|build|package" >&2; exit 2 ;;
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

[ "${SKIP_APT:-0}" = 1 ] || install_packages

echo "==> configuring $build_dir (LLVM $llvm)"
cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTORCH_TIDY_LLVM_VERSION="$llvm" >/dev/null
echo "==> building"
cmake --build "$build_dir"

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
    echo "==> done: the warnings above are torch-tidy's. Run 'scripts/setup.sh test' for the test suite."
    ;;
  test)
    echo "==> running the test suite"
    cd "$build_dir"
    ctest --output-on-failure --timeout 3000 -j 2
    ;;
  package)
    echo "==> making the Debian package"
    cd "$build_dir"
    cpack -G DEB
    echo "==> install it with: sudo apt-get install $build_dir/$(ls -t torch-tidy_*.deb | head -1)"
    ;;
esac
