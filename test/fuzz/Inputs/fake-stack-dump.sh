#!/bin/sh
# A torch-tidy that prints LLVM's crash banner but exits normally (as when a
# crash recovery context catches the signal).
echo "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/"
echo "Stack dump:"
exit 1
