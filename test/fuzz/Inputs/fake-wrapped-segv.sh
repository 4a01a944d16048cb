#!/bin/sh
# A wrapper whose child dies from SIGSEGV: exit status 139.
sh -c 'kill -SEGV $$'
exit $?
