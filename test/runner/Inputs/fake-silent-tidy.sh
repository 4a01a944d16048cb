#!/bin/sh
# Stands in for a clang-tidy that prints nothing and exits 0.
exit 0
