#!/usr/bin/env python3
"""usage: exit_status.py CMD...  Runs CMD (stdout and stderr passed through),
then prints `exit status N` on stdout and exits 0, so that a test can check
the exact status of a command."""
import subprocess
import sys

status = subprocess.call(sys.argv[1:])
sys.stdout.flush()
print("exit status %d" % status)
