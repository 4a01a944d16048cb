#!/usr/bin/env python3
"""usage: codechecker_server.py CODECHECKER WORKSPACE LOG -- CMD...

Starts `CODECHECKER server -w WORKSPACE` on a free port of 127.0.0.1 (its output in
LOG), waits until it accepts requests, runs CMD with CC_URL set to the URL of its
Default product (http://127.0.0.1:<port>/Default), then stops the server (SIGTERM,
then SIGKILL of what is left of its process group after 60 s) whatever CMD did, and exits with
CMD's status (2 when the server did not come up within 120 s)."""
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        sys.exit(__doc__)
    codechecker, workspace, log = argv[0], argv[1], argv[2]
    cmd = argv[4:]
    port = free_port()
    with open(log, "w") as out:
        server = subprocess.Popen(
            [codechecker, "server", "-w", workspace, "--host", "127.0.0.1", "-v", str(port)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.time() + 120
        while True:
            with open(log, errors="replace") as f:
                if "Server waiting for client requests" in f.read():
                    break
            if server.poll() is not None or time.time() > deadline:
                sys.stderr.write("codechecker_server.py: the server did not start (%s)\n" % log)
                return 2
            time.sleep(0.2)
        env = dict(os.environ, CC_URL="http://127.0.0.1:%d/Default" % port)
        return subprocess.call(cmd, env=env)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        # Its worker processes too, should any outlive it (its own process group).
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
