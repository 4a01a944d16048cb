#!/bin/sh
# A torch-tidy that hangs in a child process that keeps the output pipe open:
# only killing the whole process group ends it.
sleep 30
echo unreachable
