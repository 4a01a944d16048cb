"""The result cache: a file's result stored under a key that covers everything
that can change it, replayed instead of running torch-tidy again."""

import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import zlib

from . import common
from .common import PROG, fail, sha
from .fixes import yaml_scalar
from .preamble import without_output_flags
from .summary_file import Reads, SummaryError, checked_summaries
from .tidy import Result, tidy_options
from .tools import find_pch_clang

# A file's result (diagnostics with notes and snippets, status, fix-its) is stored
# under a key that covers everything that can change it, and replayed on the next run
# instead of running torch-tidy again. Two levels, as ccache's direct and preprocessor
# modes:
#
#   manifest  key: the torch-tidy binary (a hash of its contents, --version), this runner,
#             the options passed to torch-tidy, the file's effective configuration
#             (torch-tidy --dump-config), the compile command and directory, the
#             environment variables that add include directories, and the main file's
#             contents. It lists every file the preprocessor read for this TU with a
#             hash of its contents, and the result key. A hit needs every one of them
#             unchanged (hashed once per run), so a changed header invalidates exactly
#             the files that include it.
#   result    key: the same, plus the preprocessed translation unit (clang -E with the
#             file's compile command) and the contents of everything it read.
#
# With summaries across files (docs/summaries.md) a file's result also depends on the
# entries of the project's summaries it reads. Its result key then names a `reads`
# entry (the USRs it reads: they depend on its code only), and the result is stored
# under the result key plus a digest of those entries in the table it was analysed
# with, together with what the file exported (its own summaries): a changed summary
# invalidates exactly the files that read it, and a hit needs no analysis at all.
#
# Entries are written to a temporary file in the cache directory and renamed into
# place, so runners sharing a directory never see half an entry; an entry that does
# not decompress, parse or match its checksum is a miss. The directory is kept under a
# size limit by evicting the entries used least recently (a hit refreshes its mtime).


CACHE_FORMAT = "run-torch-tidy-cache-2"
CACHE_MAGIC = b"TTCACHE1\n"
CACHE_ENV_INCLUDES = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH")
CACHE_STORED_STATUSES = ("ok", "compile-error")
DEFAULT_CACHE_SIZE = 1 << 30


def add_cache_arguments(p):
    c = p.add_argument_group("result cache (on by default)")
    c.add_argument("--no-cache", dest="cache", action="store_false", default=None,
                   help="analyse every file, neither reading nor writing the cache "
                        "(also: environment TORCH_TIDY_NO_CACHE=1)")
    c.add_argument("--cache", dest="cache", action="store_true",
                   help="use the cache even when TORCH_TIDY_NO_CACHE is set")
    c.add_argument("--cache-dir", metavar="DIR",
                   help="cache directory (default: $TORCH_TIDY_CACHE_DIR, else "
                        "$XDG_CACHE_HOME/torch-tidy, else ~/.cache/torch-tidy)")
    c.add_argument("--cache-size", metavar="SIZE",
                   help="evict the least recently used entries beyond SIZE bytes (suffix K, M "
                        "or G; default: $TORCH_TIDY_CACHE_SIZE, else 1G)")


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)i?[bB]?\s*", text or "")
    if not m:
        return None
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()])


def check_cache_arguments(args):
    """Resolves the cache options against the environment (the command line wins)."""
    if args.cache is None:
        args.cache = os.environ.get("TORCH_TIDY_NO_CACHE", "") in ("", "0")
    size = args.cache_size if args.cache_size is not None else os.environ.get("TORCH_TIDY_CACHE_SIZE")
    args.cache_size = DEFAULT_CACHE_SIZE if size is None else parse_size(size)
    if args.cache_size is None or args.cache_size < 1:
        fail("--cache-size: '%s' is not a size such as 500M or 2G" % size)
    if args.cache_dir is None:
        args.cache_dir = os.environ.get("TORCH_TIDY_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
            "torch-tidy")
    args.cache_dir = os.path.abspath(args.cache_dir)
    if args.cache and os.path.exists(args.cache_dir) and not os.path.isdir(args.cache_dir):
        fail("--cache-dir: %s is not a directory" % args.cache_dir)


def file_identity(path):
    """A program's identity: its contents. A rebuilt or reinstalled torch-tidy that
    is byte for byte the same (as in CI jobs that build it afresh) keeps the cache."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:  # executable but not readable: its place and time then
        st = os.stat(path)
        return [path, st.st_size, st.st_mtime_ns]
    return h.hexdigest()


class CacheKey:
    """What a file's result is looked up and stored under."""
    def __init__(self, manifest):
        self.manifest = manifest  # manifest key
        self.result = None        # result key, once known
        self.deps = None          # [[path, content hash], ...] the preprocessor read
        self.stamps = None        # {path: (size, mtime_ns)} of those, when hashed
        self.why = ""             # why the file is not cached (empty when it can be)
        self.base = None          # what both keys hash, apart from the file's contents


class ResultCache:
    def __init__(self, args, tidy, version, clang, log):
        self.dir = os.path.join(args.cache_dir, "v1")
        self.args, self.tidy, self.clang, self.log = args, tidy, clang, log
        self.limit = args.cache_size
        self.lock = threading.Lock()
        self.hashes = {}    # path -> (stamp, hash): each dependency hashed once per run
        self.configs = {}   # directory -> effective configuration
        self.hits = 0
        self.summaries = False  # summaries across files: run-torch-tidy passes --summaries
        runner = common.runner_identity()
        tool = [file_identity(os.path.realpath(tidy)), version]
        try:
            tool.append(subprocess.run([tidy, "--version"], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=60).stdout.decode("utf-8", "replace"))
        except (OSError, subprocess.SubprocessError):
            pass
        for a in tidy_options(args):  # plugins loaded into torch-tidy
            m = re.match(r"--?load=(.*)", a)
            if m and os.path.exists(m.group(1)):
                tool.append(file_identity(m.group(1)))
        self.common = [CACHE_FORMAT, runner, tool, tidy_options(args),
                       [os.environ.get(v) for v in CACHE_ENV_INCLUDES]]

    # -- keys --

    def content_hash(self, path):
        """The hash of a file's contents, or None when it cannot be read. Each file is
        read once per run (store() checks that none changed while it was analysed)."""
        with self.lock:
            known = self.hashes.get(path)
        if known:
            return known[1]
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        try:
            with open(path, "rb") as f:
                h = sha(f.read())[:32]
        except OSError:
            return None
        with self.lock:
            self.hashes[path] = (stamp, h)
        return h

    def config(self, entry):
        """torch-tidy's effective configuration for the file's directory."""
        d = os.path.dirname(entry.file)
        with self.lock:
            if d in self.configs:
                return self.configs[d]
        cmd = [self.tidy, "--dump-config"] + tidy_options(self.args) + [entry.file, "--"]
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
            text = r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            text = None
        with self.lock:
            self.configs[d] = text
        return text

    def named_summaries(self, entry):
        """The summary files a configuration may name for the file (CheckOptions
        torch-tidy.Summaries, as CMake builds use) with a hash of their contents: each
        file reads them. --dump-config leaves that option out, so --config,
        --config-file and every .clang-tidy above the file are searched for it (one
        that is not in effect only costs a miss)."""
        d = os.path.dirname(entry.file)
        with self.lock:
            if ("summaries", d) in self.configs:
                return self.configs[("summaries", d)]
        texts = [self.args.config or ""]
        paths = [self.args.config_file] if self.args.config_file else []
        up = d
        while True:
            paths.append(os.path.join(up, ".clang-tidy"))
            if os.path.dirname(up) == up:
                break
            up = os.path.dirname(up)
        for path in paths:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    texts.append(f.read())
            except OSError:
                pass
        found = []
        for text in texts:
            for m in re.finditer(r"torch-tidy\.Summaries['\"]?\s*:[ \t]*([^,}\n]*)", text):
                name = yaml_scalar(m.group(1).strip())
                if name:
                    found.append([name, self.content_hash(os.path.abspath(name))])
        with self.lock:
            self.configs[("summaries", d)] = found
        return found

    def key(self, entry):
        if entry.count > 1:
            k = CacheKey(None)
            k.why = "several compile commands for the file"
            return k
        config = self.config(entry)
        main = self.content_hash(entry.file)
        if config is None or main is None:
            k = CacheKey(None)
            k.why = "torch-tidy --dump-config failed" if config is None else "cannot read the file"
            return k
        base = self.common + [config, entry.directory, entry.file, entry.args]
        if not self.summaries:
            # (With summaries across files, --summaries on the command line wins.)
            base = base + self.named_summaries(entry)
        k = CacheKey(sha(json.dumps(base + [main]).encode()))
        k.base = base
        return k

    def preprocess(self, entry, key, tmpdir, index):
        """Runs the preprocessor with the file's compile command: sets key.result and
        key.deps, or key.why when that fails (the file is then not cached)."""
        if self.clang is None:
            key.why = "no clang of torch-tidy's LLVM version to preprocess with (pass --clang)"
            return
        args = [a for _, a in without_output_flags(entry.args[1:])]
        name = os.path.basename(entry.args[0])
        driver = [] if "++" in name or name in ("cxx", "CC") else ["--driver-mode=gcc"]
        depfile = os.path.join(tmpdir, "deps-%05d.d" % index)
        cmd = [self.clang] + driver + self.args.extra_arg_before + args + self.args.extra_arg + [
            "-E", "-MD", "-MF", depfile, "-o", "-"]
        try:
            r = subprocess.run(cmd, cwd=entry.directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            key.why = "cannot run %s: %s" % (self.clang, e.strerror)
            return
        if r.returncode != 0:
            lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
            key.why = "the preprocessor failed: %s" % (lines[0][:200] if lines else "status %d" % r.returncode)
            return
        try:
            with open(depfile, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read().replace("\\\n", " ")
            os.unlink(depfile)
        except OSError as e:
            key.why = "no dependency list from the preprocessor: %s" % e.strerror
            return
        names = text.split(":", 1)[1].replace("\\ ", "\0").split() if ":" in text else []
        deps, stamps = [], {}
        for n in dict.fromkeys(os.path.normpath(os.path.join(entry.directory, n.replace("\0", " ")))
                               for n in names):
            h = self.content_hash(n)
            if h is None:
                key.why = "cannot read %s" % n
                return
            deps.append([n, h])
            stamps[n] = self.hashes[n][0]
        key.deps, key.stamps = deps, stamps
        key.result = sha(json.dumps(key.base + [sha(r.stdout), deps]).encode())

    # -- entries --

    def path(self, kind, key):
        return os.path.join(self.dir, key[:2], "%s-%s" % (kind, key[2:]))

    def read(self, kind, key):
        """The stored body, or None (missing, truncated, corrupt: all misses)."""
        path = self.path(kind, key)
        try:
            with open(path, "rb") as f:
                data = f.read()
            if not data.startswith(CACHE_MAGIC):
                raise ValueError("bad magic")
            entry = json.loads(zlib.decompress(data[len(CACHE_MAGIC):]).decode("utf-8"))
            body = entry["body"]
            if entry["key"] != key or entry["sha"] != sha(json.dumps(body, sort_keys=True).encode()):
                raise ValueError("checksum")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, zlib.error, UnicodeDecodeError):
            self.log("cache entry %s is unreadable; ignored" % os.path.basename(path))
            return None
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return body

    def write(self, kind, key, body):
        path = self.path(kind, key)
        data = CACHE_MAGIC + zlib.compress(json.dumps(
            {"key": key, "sha": sha(json.dumps(body, sort_keys=True).encode()), "body": body}).encode(), 1)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as e:
            self.log("cannot write the cache entry %s: %s" % (path, e.strerror))

    def lookup_manifest(self, key, complete=False):
        """The result key the manifest names if every dependency is unchanged, else
        (None, why). With complete, a hit also fills in the key (result, deps and
        stamps), as preprocess() does, so that a new result can be stored under it."""
        body = self.read("m", key.manifest)
        if body is None:
            return None, "no entry for these contents, flags and configuration"
        try:
            for path, h in body["deps"]:
                if self.content_hash(path) != h:
                    return None, "%s changed" % os.path.relpath(path)
            result = body["result"]
            if complete:
                if not isinstance(result, str):
                    raise TypeError("result")
                with self.lock:
                    stamps = {path: self.hashes[path][0] for path, _ in body["deps"]}
                key.deps, key.stamps, key.result = [list(d) for d in body["deps"]], stamps, result
            return result, None
        except (TypeError, ValueError, KeyError):
            return None, "unreadable entry"

    # -- summaries across files --

    @staticmethod
    def reads_key(result_key):
        return sha(json.dumps([result_key, "summary-reads"]).encode())

    @staticmethod
    def summary_result_key(result_key, digest):
        return sha(json.dumps([result_key, "summaries", digest]).encode())

    def project_key(self, directory, text):
        return sha(json.dumps([directory, sha(text.encode("utf-8"))]).encode())

    def lookup_project(self, directory, text):
        """{file: result key} of the files whose code wrote the project table text in
        directory (stored by the run that wrote it), or None."""
        body = self.read("p", self.project_key(directory, text))
        files = body.get("files") if isinstance(body, dict) else None
        if not (isinstance(files, dict) and all(isinstance(v, str) for v in files.values())):
            return None
        return files

    def store_project(self, directory, text, files):
        self.write("p", self.project_key(directory, text), {"files": files})

    def lookup_reads(self, result_key):
        """What the file's analysis reads of the summaries (Reads, stored with its
        first result), or None."""
        body = self.read("s", self.reads_key(result_key))
        if body is None:
            return None
        lists = [body.get(k) for k in ("reads", "defines")] if isinstance(body, dict) else [None]
        if not all(isinstance(l, list) and all(isinstance(u, str) for u in l) for l in lists):
            self.log("cache entry s-%s holds no reads; ignored" % self.reads_key(result_key))
            return None
        return Reads(*lists)

    def load_result(self, result_key, entry, tmpdir, index):
        body = self.read("r", result_key)
        if body is None:
            return None
        try:
            res = Result(entry)
            if "export" in body:  # summaries mode: what the file exported
                res.export = checked_summaries(body["export"], with_reads=True)
            res.status, res.message = body["status"], body["message"]
            res.unknown_flags = list(body["unknown_flags"])
            res.pch = bool(body["pch"])
            res.diagnostics = body["diagnostics"]
            if body.get("no_torch"):  # the note that no torch-* check is enabled
                res.no_torch = tuple(str(x) for x in body["no_torch"])
            for d in res.diagnostics:  # the fields the reports read
                for x in [d] + d["notes"]:
                    (x["file"], int(x["line"]), int(x["column"]), x["level"], x["message"], x["snippet"])
                d["check"].split
            if body["fixes"] is not None:
                res.fixes = os.path.join(tmpdir, "fixes-%05d.yaml" % index)
                with open(res.fixes, "w", encoding="utf-8") as f:
                    f.write(body["fixes"])
        except (KeyError, TypeError, ValueError, AttributeError, SummaryError):
            self.log("cache entry r-%s holds no result; ignored" % result_key)
            return None
        res.cached = True
        return res

    def store(self, key, res, digest=None):
        """Stores the file's result under its key; with digest (summaries mode), under
        the key and the digest of the summary entries it read, with its export, and
        the USRs it reads."""
        if key.result is None or res.status not in CACHE_STORED_STATUSES:
            return
        for path, stamp in key.stamps.items():  # changed while it was analysed: keep nothing
            try:
                st = os.stat(path)
            except OSError:
                return
            if (st.st_size, st.st_mtime_ns, st.st_ino) != stamp:
                return
        fixes = None
        if res.fixes:
            try:
                with open(res.fixes, encoding="utf-8") as f:
                    fixes = f.read()
            except OSError:
                fixes = ""
        body = {"status": res.status, "message": res.message,
                "unknown_flags": res.unknown_flags, "pch": res.pch,
                "diagnostics": res.diagnostics, "fixes": fixes, "no_torch": res.no_torch}
        if digest is None:
            self.write("r", key.result, body)
        else:
            body["export"] = res.export
            self.write("r", self.summary_result_key(key.result, digest), body)
            self.write("s", self.reads_key(key.result), {
                "reads": res.export["reads"], "defines": sorted(f["usr"] for f in res.export["functions"])})
        self.write("m", key.manifest, {"deps": key.deps, "result": key.result})

    def evict(self):
        """Removes the least recently used entries while the cache is over its limit,
        and temporary files left by runners that were killed."""
        files, total, now = [], 0, time.time()
        try:
            subdirs = [e.path for e in os.scandir(self.dir) if e.is_dir()]
        except OSError:
            return
        for d in subdirs:
            try:
                for e in os.scandir(d):
                    st = e.stat()
                    if e.name.startswith(".tmp-"):
                        if now - st.st_mtime > 3600:
                            self._remove(e.path)
                        continue
                    files.append((st.st_mtime, st.st_size, e.path))
                    total += st.st_size
            except OSError:
                continue
        if total <= self.limit:
            return
        files.sort()
        for _, size, path in files:
            if total <= self.limit:
                break
            if self._remove(path):
                total -= size

    @staticmethod
    def _remove(path):
        try:
            os.unlink(path)
            return True
        except OSError:
            return False


def cache_lookup(cache, entries, tmpdir, jobs, log):
    """Looks every entry up. Returns ({index: Result} for the hits, {index: CacheKey}
    for the misses that can be stored)."""
    keys = [cache.key(e) for e in entries]
    hits, misses, todo = {}, {}, []
    for i, (e, k) in enumerate(zip(entries, keys)):
        if k.manifest is None:
            log(e.file, "not cached: %s" % k.why)
            continue
        result_key, why = cache.lookup_manifest(k)
        res = cache.load_result(result_key, e, tmpdir, i) if result_key else None
        if res is not None:
            hits[i] = res
            log(e.file, "cache hit")
        else:
            todo.append((i, why or "no result entry"))

    def second_level(item):
        i, why = item
        k = keys[i]
        cache.preprocess(entries[i], k, tmpdir, i)
        if k.result is None:
            log(entries[i].file, "cache miss (%s); not cached: %s" % (why, k.why))
            return
        res = cache.load_result(k.result, entries[i], tmpdir, i)
        if res is not None:
            with cache.lock:
                hits[i] = res
            cache.write("m", k.manifest, {"deps": k.deps, "result": k.result})
            log(entries[i].file, "cache hit (preprocessed; the manifest said: %s)" % why)
        else:
            with cache.lock:
                misses[i] = k
            log(entries[i].file, "cache miss: %s" % why)
    if todo:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(second_level, todo))
    return hits, misses


def open_cache(args, tidy, version, entries, tmpdir, progress, log):
    """The cache and the lookup of every entry: (cache, hits, keys of the misses), or
    (None, {}, {}) when there is no clang to preprocess with."""
    clang, why = find_pch_clang(args.clang, version[0])
    if clang is None:
        progress.message("%s: note: result cache not used: %s" % (PROG, why))
        return None, {}, {}
    cache = ResultCache(args, tidy, version, clang,
                        lambda m: progress.message("%s: note: %s" % (PROG, m)))
    hits, keys = cache_lookup(cache, entries, tmpdir, args.jobs, log)
    return cache, hits, keys
