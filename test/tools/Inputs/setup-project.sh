#!/bin/sh
# usage: setup-project.sh DEST MOCK_TORCH_DIR
# Copies the sample project (test/tools/Inputs/project) to DEST and writes its
# build/compile_commands.json for a private copy of the mock LibTorch headers
# in MOCK_TORCH_DIR (DEST/mock: a precompiled header checks that its headers
# did not change, so the test must not see concurrent edits of the mock).
set -e
src=$(dirname "$0")/project
rm -rf "$1"
mkdir -p "$1/build"
cp -r "$src/." "$1/"
cp -r "$2" "$1/mock"
rm "$1/compile_commands.json.in"
sed -e "s|@DIR@|$1|g" -e "s|@MOCK@|$1/mock|g" "$src/compile_commands.json.in" > "$1/build/compile_commands.json"
