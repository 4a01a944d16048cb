#!/usr/bin/env python3
"""Minimal LSP client for testing torch-clangd.

usage: lsp_client.py [--timeout S] [--code-actions] SOURCE -- CLANGD [ARGS...]

Starts the language server, sends initialize/initialized, opens SOURCE
(didOpen), waits for the first textDocument/publishDiagnostics for it, prints
one line per diagnostic:

    diagnostic <line>:<col> <source> <code> <severity>: <message>

(1-based line and column). With --code-actions the client announces clangd's
inline code actions, and for each diagnostic prints the quick fixes published
with it and the ones a textDocument/codeAction request returns:

    inline-action <line>:<col> <code>: <title> (<n> edits)
    action <line>:<col> <code>: <title> (<n> edits)

Then it shuts the server down (shutdown + exit) and
exits 0 when the server exited cleanly. Exits 1 with a message on timeout or
when the server dies.
"""

import json
import os
import pathlib
import subprocess
import sys
import threading
import queue


def send(proc, obj):
    body = json.dumps(obj).encode("utf-8")
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def reader(stream, out):
    """Parses LSP frames from the server's stdout onto queue OUT."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                out.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            continue
        out.put(json.loads(stream.read(length).decode("utf-8")))


def edit_count(action):
    edit = action.get("edit", {})
    n = sum(len(v) for v in edit.get("changes", {}).values())
    return n + sum(len(c.get("edits", [])) for c in edit.get("documentChanges", []))


def print_code_actions(proc, uri, diagnostics, wait_for):
    ordered = sorted(diagnostics, key=lambda d: (d["range"]["start"]["line"],
                                                 d["range"]["start"]["character"]))
    for n, d in enumerate(ordered):
        start = d["range"]["start"]
        where = "%d:%d %s" % (start["line"] + 1, start["character"] + 1, d.get("code", "-"))
        for a in d.get("codeActions", []):
            print("inline-action %s: %s (%d edits)" % (where, a["title"], edit_count(a)))
        request = dict(d)
        request.pop("codeActions", None)
        send(proc, {"jsonrpc": "2.0", "id": 100 + n, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [request], "only": ["quickfix"]}}})
        reply = wait_for(lambda m, n=n: m.get("id") == 100 + n, "the codeAction response")
        for a in reply.get("result") or []:
            if a.get("kind") == "quickfix":
                print("action %s: %s (%d edits)" % (where, a["title"], edit_count(a)))


def main(argv):
    timeout = 120.0
    if argv[:1] == ["--timeout"]:
        timeout = float(argv[1])
        argv = argv[2:]
    code_actions = argv[:1] == ["--code-actions"]
    if code_actions:
        argv = argv[1:]
    if "--" not in argv or argv.index("--") != 1:
        sys.exit("usage: lsp_client.py [--timeout S] [--code-actions] SOURCE -- CLANGD [ARGS...]")
    source = pathlib.Path(argv[0]).resolve()
    server = argv[2:]
    uri = source.as_uri()
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    messages = queue.Queue()
    threading.Thread(target=reader, args=(proc.stdout, messages), daemon=True).start()

    def wait_for(pred, what):
        while True:
            try:
                msg = messages.get(timeout=timeout)
            except queue.Empty:
                proc.kill()
                sys.exit("lsp_client: timed out after %gs waiting for %s" % (timeout, what))
            if msg is None:
                sys.exit("lsp_client: server exited (code %s) while waiting for %s"
                         % (proc.wait(), what))
            # Answer server->client requests (e.g. workDoneProgress/create).
            if "method" in msg and "id" in msg:
                send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if pred(msg):
                return msg

    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": source.parent.as_uri(),
        "capabilities": {"textDocument": {
            "publishDiagnostics": {"codeDescriptionSupport": True, "codeActionsInline": code_actions},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}}}}}})
    init = wait_for(lambda m: m.get("id") == 1, "the initialize response")
    print("server:", init["result"].get("serverInfo", {}).get("name", "?"))
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                         "text": source.read_text()}}})
    diags = wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                     and m["params"]["uri"] == uri, "publishDiagnostics")
    for d in sorted(diags["params"]["diagnostics"],
                    key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"])):
        start = d["range"]["start"]
        severity = {1: "error", 2: "warning", 3: "info", 4: "hint"}.get(d.get("severity"), "?")
        print("diagnostic %d:%d %s %s %s: %s" % (
            start["line"] + 1, start["character"] + 1, d.get("source", "?"),
            d.get("code", "-"), severity, d["message"].replace("\n", " | ")))
    if code_actions:
        print_code_actions(proc, uri, diags["params"]["diagnostics"], wait_for)
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    wait_for(lambda m: m.get("id") == 2, "the shutdown response")
    send(proc, {"jsonrpc": "2.0", "method": "exit", "params": None})
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        sys.exit("lsp_client: server did not exit after 'exit'")
    print("server exit code:", code)
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
