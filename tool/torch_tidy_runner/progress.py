"""Progress on stderr: a status line on a terminal, one line per file otherwise."""

import os
import shutil
import sys
import threading

from .common import PROG


class Progress:
    def __init__(self, mode, total):
        if mode == "auto":
            mode = "tty" if sys.stderr.isatty() else "lines"
        self.mode, self.total, self.done = mode, total, 0
        self.label = ""  # "round N: " in the later rounds of the summaries
        self.lock = threading.Lock()

    def start_round(self, rnd, total, text):
        """A new round of the summaries across files: the counter restarts,
        after a line that says why (not with --progress=none or -q)."""
        with self.lock:
            self.done, self.total, self.label = 0, total, "round %d: " % rnd
            if self.mode == "none":
                return
            if self.mode == "tty":
                sys.stderr.write("\r\033[K")
            sys.stderr.write("%s: %s\n" % (PROG, text))
            sys.stderr.flush()

    def file_done(self, res):
        with self.lock:
            self.done += 1
            if self.mode == "none":
                return
            n = sum(d["level"] in ("warning", "error") for d in res.diagnostics)
            status = "" if res.status == "ok" else ", " + res.status
            text = "[%s%*d/%d] %s (%d diagnostic%s%s, %.1f s%s)" % (
                self.label, len(str(self.total)), self.done, self.total,
                os.path.relpath(res.entry.file), n, "" if n == 1 else "s", status, res.seconds,
                ", cached" if res.cached else ", pch" if res.pch else "")
            if self.mode == "tty":
                width = shutil.get_terminal_size((100, 20)).columns
                sys.stderr.write("\r\033[K" + text[:width - 1])
                if self.done == self.total:
                    sys.stderr.write("\r\033[K")
            else:
                sys.stderr.write("%s: %s\n" % (PROG, text))
            sys.stderr.flush()

    def message(self, text):
        with self.lock:
            if self.mode == "tty":
                sys.stderr.write("\r\033[K")
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def pch_note(self, path, note, quiet, verbose):
        """A file's PCH note (tidy.Result.pch_note): a rejected PCH is a note for
        everyone (not with -q), any other (PCH not used, and why) only with -v."""
        if not note:
            return
        if note.startswith("PCH rejected") and not quiet:
            self.message("%s: note: %s: precompiled header rejected, analysed without it: %s"
                         % (PROG, os.path.relpath(path), note.split(": ", 1)[1]))
        else:
            verbose(path, note)
