"""Compiler flags of the compile commands that clang rejects: the GCC-only flags
dropped with a note, and --drop-flag (a compilation database written without them)."""

import json
import os
import re


# Flags of compile commands written for GCC that clang (LLVM 19) rejects as
# unknown, and that only tune GCC's code generation, optimisation, debug
# information or diagnostics output: analysing without them is analysing the
# same code. Dropped from every command, with one note, as CodeChecker drops
# its list of GCC-only flags when it hands a GCC build to clang. Flags that
# change the language GCC accepts (-fmodules-ts, -fcontracts, -fgnu-tm) are not
# here: clang cannot analyse such code anyway, and the error says why. Each
# pattern must match the whole argument.
GCC_ONLY_FLAGS = (
    # Diagnostics output.
    r"-fconcepts-diagnostics-depth=\d+",
    r"-f(no-)?canonical-system-headers",
    r"-ftrack-macro-expansion(=\d)?",
    r"-f(no-)?diagnostics-show-(caret|labels|cwe|rules)",
    r"-fdiagnostics-(urls|path-format|text-art-charset|column-unit|escape-format)=.*",
    r"-fno-pretty-templates",
    r"-fno-optional-diags",
    # C++ dialect switches with no effect on what is analysed.
    r"-fconcepts(-ts)?",
    r"-fabi-(compat-)?version=\d+",
    r"-f(no-)?enforce-eh-specs",
    r"-fnothrow-opt",
    r"-f(no-)?nonansi-builtins",
    r"-fstrong-eval-order(=\w+)?",
    r"-f(no-)?implicit-constexpr",
    r"-fconstexpr-(ops-limit|loop-limit|cache-depth)=\d+",
    r"-fdeduce-init-list",
    r"-f(no-)?ext-numeric-literals",
    r"-f(no-)?gnu-unique",
    r"-frepo",
    # Optimisation, code generation, debug information.
    r"-f(no-)?lifetime-dse(=\d)?",
    r"-f(no-)?ipa-[\w-]+",
    r"-f(no-)?aggressive-loop-optimizations",
    r"-f(no-)?var-tracking(-assignments)?",
    r"-f(no-)?printf-return-value",
    r"-f(no-)?allow-store-data-races",
    r"-f(no-)?code-hoisting",
    r"-fsched-[\w-]+(=\d+)?",
    r"-f(no-)?reorder-functions",
    r"-f(no-)?toplevel-reorder",
    r"-f(no-)?partial-inlining",
    r"-f(no-)?peephole2?",
    r"-fregmove",
    r"-f(no-)?rerun-cse-after-loop",
    r"-f(no-)?thread-jumps",
    r"-f(no-)?tree-(?!(slp-)?vectorize$)[\w-]+",
    r"-f(no-)?hoist-adjacent-loads",
    r"-f(no-)?indirect-inlining",
    r"-f(no-)?gcse-lm",
    r"-f(no-)?cse-(follow-jumps|skip-blocks)",
    r"-f(no-)?crossjumping",
    r"-fno-jump-table",
    r"-f(no-)?keep-inline-dllexport",
    r"-fstack-reuse=\w+",
    r"-f(no-)?conserve-stack",
    r"-flto-partition=\w+",
    r"-fopt-info(-[\w-]+)?(=.*)?",
    r"-f(no-)?split-paths",
    r"-fgraphite(-identity)?",
    r"-floop-(nest-optimize|parallelize-all)",
    r"-f(vect|simd)-cost-model=\w+",
    r"-f(no-)?ira-[\w-]+(=\w+)?",
    r"-fbranch-probabilities",
    r"-f(no-)?guess-branch-probability",
    r"-f(no-)?function-cse",
    r"-fvtable-verify=\w+",
    r"-f(no-)?checking(=\d)?",
    r"-fcallgraph-info(=.*)?",
    r"-fharden-[\w-]+",
    r"-fmem-report",
    r"-fdump-(?!fortran-|parse-tree)[\w-]+(=.*)?",
    r"-fcond-mismatch",
    r"-fallow-parameterless-variadic-functions",
    r"-mpreferred-stack-boundary=\d+",
    r"-m(no-)?accumulate-outgoing-args",
    r"-mindirect-branch=[\w-]+",
    r"-mindirect-branch-register",
)
GCC_ONLY_FLAGS_RE = re.compile("|".join("(?:%s)" % f for f in GCC_ONLY_FLAGS))


def drop_gcc_only_flags(entries):
    """Removes GCC_ONLY_FLAGS from the compile commands; {flag: number of files}."""
    dropped = {}
    for e in entries:
        kept = [a for a in e.args[1:] if not GCC_ONLY_FLAGS_RE.fullmatch(a)]
        if len(kept) < len(e.args) - 1:
            for flag in sorted({a for a in e.args[1:] if GCC_ONLY_FLAGS_RE.fullmatch(a)}):
                dropped[flag] = dropped.get(flag, 0) + 1
            e.args = e.args[:1] + kept
    return dropped


def flag_regex(flag):
    """A --drop-flag regular expression for exactly this flag ('-' and '='
    stay as they are: they are not special outside brackets)."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", flag)


def drop_flags(entries, regexes, tmpdir):
    """Writes a compilation database without the dropped flags; returns its directory."""
    rxs = [re.compile(r) for r in regexes]
    for e in entries:
        e.args = [e.args[0]] + [a for a in e.args[1:] if not any(rx.fullmatch(a) for rx in rxs)]
    d = os.path.join(tmpdir, "db")
    os.makedirs(d)
    with open(os.path.join(d, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{"directory": e.directory, "file": e.file, "arguments": e.args} for e in entries], f)
    return d
