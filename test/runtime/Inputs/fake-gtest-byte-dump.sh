#!/bin/sh
# A GoogleTest program's --gtest_list_tests output whose parameter type has no
# PrintTo: what runtime.readable-parameter-names must reject.
echo "Examples/MissingEpsilon."
echo "  BuggyGradientHasNaN/distance  # GetParam() = 32-byte object <71-06 85-71 55-55 00-00 A0-0D 9B-6F 55-55 00-00 40-16 9B-6F 55-55 00-00 28-07 85-71 55-55 00-00>"
