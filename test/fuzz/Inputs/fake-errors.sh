#!/bin/sh
# A torch-tidy that reports compiler errors and exits 1: not a crash.
echo "m.cpp:1:1: error: unknown type name 'x' [clang-diagnostic-error]"
echo "Found compiler error(s)."
exit 1
