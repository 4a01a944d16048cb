#!/bin/sh
# A clang-tidy stand-in that answers --version and --list-checks, then dies
# of SIGSEGV on every file.
case "$*" in
  *--version*) echo "LLVM version 19.1.7"; exit 0 ;;
  *--list-checks*) echo "Enabled checks:"; echo "    torch-load-without-device"; exit 0 ;;
esac
kill -SEGV $$
