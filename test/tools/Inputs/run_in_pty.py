#!/usr/bin/env python3
"""usage: run_in_pty.py CMD...  Runs CMD with stdout and stderr on a pseudo
terminal and prints what it wrote with the carriage return shown as \\r and
the escape character as \\e, so that FileCheck can see terminal control.
Exits with CMD's status."""
import os
import subprocess
import sys

master, slave = os.openpty()
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
os.close(slave)
out = bytearray()
while True:
    try:
        data = os.read(master, 4096)
    except OSError:  # EIO: the terminal's last writer is gone
        break
    if not data:
        break
    out.extend(data)
status = proc.wait()
text = out.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\\r").replace("\x1b", "\\e")
sys.stdout.write(text)
sys.exit(status)
