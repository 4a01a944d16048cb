#!/usr/bin/env bash
# Builds torch-tidy and runs the whole test suite against each LLVM version given
# (default: 19 and 22), each in its own build directory (build-llvm<N>). CI runs 19
# through .ci/run; this script is the on-demand second leg.
#
#   scripts/test-llvm-matrix.sh [19] [22]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(19 22)
summary=""
for v in "${versions[@]}"; do
  case "$v" in
    ''|*[!0-9]*) echo "test-llvm-matrix: '$v' is not an LLVM major version" >&2; exit 2 ;;
  esac
  echo "==== LLVM $v"
  if BUILD_DIR="$here/build-llvm$v" TORCH_TIDY_LLVM_VERSION="$v" bash "$here/scripts/setup.sh" test; then
    summary="$summary\nLLVM $v: passed"
  else
    summary="$summary\nLLVM $v: FAILED"
  fi
done
printf "%b\n" "$summary"
! printf "%b" "$summary" | grep -q FAILED
