#!/usr/bin/env bash
# Fetch LibTorch 2.x headers for the real-header tests against 2.x (opt-in; CI does not run it).
#
#   scripts/fetch-libtorch2.sh [BUILD_DIR]       (default: build)
#
# Downloads PyPI's torch wheel of the version pinned in scripts/libtorch2-version.txt
# (LIBTORCH2_VERSION=2.x.y overrides it, for a trial of another version) with
# `pip download --no-deps` into BUILD_DIR/libtorch2/wheels/ (once: a wheel already there is
# reused), and extracts only torch/include, torch/share/cmake and torch/version.py into
# BUILD_DIR/libtorch2/<version>/torch/. Nothing is installed into any Python.
# The wheel is PyPI's default Linux build (CUDA, about 530 MB for 2.13.0); its headers
# are the same as the CPU build's apart from the CUDA ones, which no test includes.
#
# Then re-run CMake on BUILD_DIR: it finds BUILD_DIR/libtorch2/<pinned version>/torch/include
# (TORCH_TIDY_LIBTORCH2_INCLUDE), precompiles <torch/torch.h> for it and registers the ctest
# entry lit.checks-real-libtorch2 (label libtorch2): `ctest -L libtorch2`, or
# `scripts/setup.sh libtorch2`, which does all of this.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-${BUILD_DIR:-"$here/build"}}
version=${LIBTORCH2_VERSION:-$(tr -d ' \n' < "$here/scripts/libtorch2-version.txt")}
case "$version" in
  2.*) ;;
  *) echo "fetch-libtorch2: not a 2.x version: '$version'" >&2; exit 2 ;;
esac
root="$build_dir/libtorch2"
dest="$root/$version"
if [ -f "$dest/.complete" ]; then
  echo "fetch-libtorch2: LibTorch $version headers already in $dest/torch/include"
  exit 0
fi
mkdir -p "$root/wheels"
# One wheel per version; pip picks the one for this Python (the headers do not depend on it).
wheel=$(ls "$root/wheels"/torch-"$version"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  echo "==> downloading torch $version from PyPI (pip download, no dependencies) into $root/wheels"
  start=$(date +%s)
  python3 -m pip download --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$root/wheels" "torch==$version"
  wheel=$(ls "$root/wheels"/torch-"$version"-*.whl | head -1)
  echo "    $(du -h "$wheel" | cut -f1) in $(($(date +%s) - start)) s"
fi
echo "==> extracting torch/include and torch/share/cmake into $dest"
rm -rf "$dest.tmp" "$dest"
python3 - "$wheel" "$dest.tmp" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist()
             if n.startswith(("torch/include/", "torch/share/cmake/")) or n == "torch/version.py"]
    z.extractall(out, names)
print("    %d files" % len(names))
PY
mv "$dest.tmp" "$dest"
touch "$dest/.complete"
grep -E "^__version__|^cuda" "$dest/torch/version.py" | sed 's/^/    /'
echo "==> LibTorch $version headers: $dest/torch/include"
echo "    now: cmake -S $here -B $build_dir && ctest --test-dir $build_dir -L libtorch2"
