#!/usr/bin/env bash
# Fetch LibTorch 2.x from PyPI's torch wheel: headers for the real-header tests, and with
# --libraries also its libraries and CUDA runtime, for the runtime suite against 2.x.
#
#   scripts/fetch-libtorch2.sh [--libraries] [BUILD_DIR]       (default: build)
#
# Downloads PyPI's torch wheel of the version pinned in scripts/libtorch2-version.txt
# (LIBTORCH2_VERSION=2.x.y overrides it, for a trial of another version) with
# `pip download --no-deps` into BUILD_DIR/libtorch2/wheels/ (once: a wheel already there is
# reused). Nothing is installed into any Python.
#
# Headers only (default): extracts torch/include, torch/share/cmake and torch/version.py
# into BUILD_DIR/libtorch2/<version>/torch/ (64 MB). The wheel is PyPI's default Linux
# build (CUDA, about 530 MB for 2.13.0); its headers are the same as the CPU build's apart
# from the CUDA ones, which no check test includes.
#
# --libraries: the whole LibTorch of the wheel (torch/lib: libtorch_cpu, libtorch_cuda, c10,
# c10_cuda, ...) and the CUDA libraries it loads, which PyPI ships as the wheel's
# dependencies (cuda-toolkit[...], nvidia-cudnn, -nccl, -cusparselt, -nvshmem: read from
# the wheel's own metadata, about 2 GB more), unpacked with `pip install --no-deps
# --target BUILD_DIR/libtorch2/<version>` so that nvidia/ sits beside torch/ as in a
# site-packages: libtorch_cuda.so finds them through its RPATH ($ORIGIN/../../nvidia/...).
# 3.8 GB on disk. Python-only dependencies (sympy, triton, ...) are not fetched.
#
# Then re-run CMake on BUILD_DIR: it finds BUILD_DIR/libtorch2/<pinned version>/torch/include
# (TORCH_TIDY_LIBTORCH2_INCLUDE), precompiles <torch/torch.h> for it and registers the ctest
# entries lit.checks-real-libtorch2 and lit.fixits-libtorch2 (label libtorch2); with the
# libraries, it also builds the runtime suite against them (ctest names runtime-libtorch2.*,
# label libtorch2). `scripts/setup.sh libtorch2` does the headers' part of all this,
# `scripts/setup.sh test` all of it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
libraries=0
if [ "${1:-}" = --libraries ]; then libraries=1; shift; fi
case "${1:-}" in
  -*) echo "fetch-libtorch2: error: unknown option '$1' (usage: scripts/fetch-libtorch2.sh [--libraries] [BUILD_DIR])" >&2; exit 2 ;;
esac
build_dir=${1:-${BUILD_DIR:-"$here/build"}}
version=${LIBTORCH2_VERSION:-$(tr -d ' \n' < "$here/scripts/libtorch2-version.txt")}
case "$version" in
  2.*) ;;
  *) echo "fetch-libtorch2: not a 2.x version: '$version'" >&2; exit 2 ;;
esac
root="$build_dir/libtorch2"
dest="$root/$version"
if [ -f "$dest/.complete" ] && { [ $libraries = 0 ] || [ -f "$dest/.libraries" ]; }; then
  echo "fetch-libtorch2: LibTorch $version $([ $libraries = 1 ] && echo 'headers and libraries' || echo headers) already in $dest"
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
if [ $libraries = 1 ]; then
  # The CUDA libraries libtorch_cuda.so links: the wheel's Linux requirements on
  # cuda-toolkit[...] and nvidia-* (pinned by the wheel itself), not the Python ones.
  mapfile -t cuda_reqs < <(python3 - "$wheel" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req, _, marker = line[len("Requires-Dist:"):].partition(";")
        req = req.strip()
        if re.match(r"(cuda-toolkit|nvidia-)", req) and "extra ==" not in marker:
            # cuda_runtime.h (which c10/cuda's headers include) includes crt/*.h, a
            # package of its own since CUDA 13: the cuda-toolkit extra "crt".
            print(re.sub(r"^cuda-toolkit\[", "cuda-toolkit[crt,", req))
PY
  )
  if [ ${#cuda_reqs[@]} = 0 ]; then
    echo "fetch-libtorch2: error: the torch $version wheel names no CUDA libraries (a CPU wheel?); --libraries expects PyPI's CUDA build" >&2
    exit 1
  fi
  echo "==> downloading the CUDA libraries torch $version loads (pip download) into $root/wheels/cuda-$version"
  start=$(date +%s)
  python3 -m pip download --disable-pip-version-check --only-binary=:all: -q \
    -d "$root/wheels/cuda-$version" "${cuda_reqs[@]}"
  echo "    $(du -sh "$root/wheels/cuda-$version" | cut -f1) in $(($(date +%s) - start)) s: ${cuda_reqs[*]}"
  echo "==> unpacking torch and the CUDA libraries into $dest (pip install --no-deps --target)"
  start=$(date +%s)
  rm -rf "$dest.tmp" "$dest"
  python3 -m pip install --disable-pip-version-check --root-user-action=ignore --no-deps --no-compile -q \
    --target "$dest.tmp" "$wheel" "$root/wheels/cuda-$version"/*.whl
  mv "$dest.tmp" "$dest"
  touch "$dest/.complete" "$dest/.libraries"
  echo "    $(du -sh "$dest" | cut -f1) in $(($(date +%s) - start)) s"
  grep -E "^__version__|^cuda" "$dest/torch/version.py" | sed 's/^/    /'
  echo "==> LibTorch $version headers and libraries: $dest/torch/{include,lib}, CUDA: $dest/nvidia"
  exit 0
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
