#!/bin/sh
# Stands in for a clang-tidy that crashes: prints a stack dump and dies by a signal.
echo "Stack dump:"
kill -SEGV $$
