#!/usr/bin/env python3
"""Generates AutogradOps.def: autograd facts read off PyTorch's derivatives.yaml.

Ops.def is written by hand, one bug report at a time; an operation missing from
it has no autograd facts at all. PyTorch states those facts itself, as the
backward formulas of tools/autograd/derivatives.yaml. This reads them and
writes, per operation name (the overload stripped), the op:: roles
(OpTable.h) that the formulas imply:

  Differentiable  some tensor input has a backward formula that is neither
                  `non_differentiable` nor `not_implemented(...)`, and some
                  output is differentiable (output_differentiability);
  SavesOutput     some backward formula reads an output (`result`,
                  `resultN`, or an output by its name, as max.dim's
                  `indices`): the output is saved for the backward;
  SavesInput      the formula for input x reads x itself;
  SavesOperands   the formula for input x reads another tensor input y.

A read means the tensor's values: the metadata autograd's code generator
saves instead of the tensor (`self.sizes()`, `self.sym_sizes()`,
`self.options()`, `self.scalar_type()`, `TensorGeometry(self)`,
`zeros_like(self)`, ...; torchgen's load_derivatives.py) is not one. Only
backward formulas count: a key that names an output (`result: ...`) is a
forward-mode formula and saves nothing. Under `dispatch:` only `Default`
counts (nested-tensor formulas are not LibTorch's usual path).

Overloads are aggregated conservatively: a fact holds for a name when it holds
for any of its overloads that has a tensor input. In-place spellings (`elu_`)
get lines of their own only where derivatives.yaml lists them; an in-place
variant it does not list inherits its functional formula at code generation,
which a consumer can do by looking up the name without the `_`.

Limits: an operation that is CompositeImplicitAutograd in native_functions.yaml
(softmax, log_softmax, square, and on CPU/CUDA matmul and linear) is recorded
by autograd as the operations it decomposes into; derivatives.yaml has no
entry for it, or one that only a special backend (nested tensors, MPS) uses,
so its line here, if any, says what that backend saves.

usage:
  gen_autograd_ops.py DERIVATIVES_YAML [--source TEXT] [-o OUT]
      write the .def (stdout without -o); TEXT goes into the header comment
      (where derivatives.yaml came from: PyTorch version and commit)
  gen_autograd_ops.py --compare-ops-def OPS_DEF AUTOGRAD_DEF
      list where the hand-written Ops.def and the generated facts disagree on
      the saves bits (SavesOutput, SavesInput, SavesOperands) of a name both
      know; exits 0 (the list is for a human to judge)
  gen_autograd_ops.py --check-def AUTOGRAD_DEF
      the .def is well formed, sorted, without duplicates; exits 1 if not
  gen_autograd_ops.py --check-functions-h DERIVATIVES_YAML FUNCTIONS_H
      compare the derived saved tensors with the SavedVariable members of
      LibTorch's generated torch/csrc/autograd/generated/Functions.h (a
      validation of the derivation; prints mismatches and a summary)

Standard library only.
"""
import argparse
import textwrap
import re
import sys

ROLE_ORDER = ("Differentiable", "SavesOutput", "SavesInput", "SavesOperands")
SAVES = ("SavesOutput", "SavesInput", "SavesOperands")

# Uses of a tensor that autograd's code generator turns into saved metadata
# (sizes, options, dtype, ...) instead of saving the tensor; {} is the name.
METADATA_USES = (
    r"{}\s*(?:\.|->)\s*(?:sym_)?sizes\(\)",
    r"{}\s*(?:\.|->)\s*size\(\w+\)",
    r"{}\s*(?:\.|->)\s*(?:sym_)?strides\(\)",
    r"{}\s*(?:\.|->)\s*numel\(\)",
    r"{}\s*(?:\.|->)\s*options\(\)",
    r"{}\s*(?:\.|->)\s*scalar_type\(\)",
    r"{}\s*(?:\.|->)\s*dim\(\)",
    r"{}\s*(?:\.|->)\s*layout\(\)",
    r"{}\s*(?:\.|->)\s*device\(\)",
    r"{}\s*(?:\.|->)\s*is_conj\(\)",
    r"{}\s*(?:\.|->)\s*suggest_memory_format\(\)",
    r"TensorGeometry\(\s*{}\s*\)",
    r"zeros_like\(\s*{}\s*\)",
    r"to_args_sizes(?:_symint)?\(\s*{}\s*\)",
    r"to_args_scalartypes\(\s*{}\s*\)",
)

NON_FORMULA_KEYS = {"name", "output_differentiability", "dispatch", "result"}


def strip_quotes(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value


def parse_yaml(text):
    """The entries of derivatives.yaml: [{name, keys: {key: formula}, line}].

    A subset of YAML, enough for derivatives.yaml: `- name: SIG` starts an
    entry, `  key: value` lines follow; `  dispatch:` opens a block whose
    `    Default:` sub-block holds the formulas that count."""
    entries = []
    entry = None
    in_dispatch = False
    dispatch_key = None
    last = None  # (indent, dict, key) of the last `key: value` with a value
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- name:"):
            entry = {"name": line[len("- name:"):].strip(), "keys": {}, "line": number}
            entries.append(entry)
            in_dispatch = False
            last = None
            continue
        if entry is None:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if last and indent > last[0]:
            # A value continued on the next line (a quoted or plain scalar).
            last[1][last[2]] += " " + line.strip()
            continue
        key, sep, value = line.strip().partition(":")
        if not sep:
            raise SystemExit("derivatives.yaml:%d: not 'key: value': %s" % (number, line))
        last = None
        target = None
        if indent == 2:
            in_dispatch = key == "dispatch"
            dispatch_key = None
            if not in_dispatch:
                target = entry["keys"]
        elif indent == 4 and in_dispatch:
            dispatch_key = key
        elif indent == 6 and in_dispatch:
            # Formulas of other dispatch keys are read, then dropped.
            target = entry["keys"] if dispatch_key == "Default" else {}
        else:
            raise SystemExit("derivatives.yaml:%d: unexpected indentation: %s" % (number, line))
        if target is not None:
            target[key] = value.strip()
            last = (indent, target, key)
    for entry in entries:
        for key in entry["keys"]:
            entry["keys"][key] = strip_quotes(entry["keys"][key])
    return entries


def split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_signature(sig):
    """name, overload, tensor inputs, outputs (names) of `op.ov(ARGS) -> RET`."""
    m = re.match(r"([\w]+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)$", sig)
    if not m:
        raise SystemExit("derivatives.yaml: cannot parse signature: %s" % sig)
    name, overload, args, ret = m.groups()
    tensors = []
    for arg in split_top(args):
        if arg == "*" or not arg:
            continue
        arg = arg.split("=", 1)[0].strip()
        type_, _, argname = arg.rpartition(" ")
        if type_.startswith("Tensor"):
            tensors.append(argname)
    ret = ret.strip()
    if ret.startswith("(") and ret.endswith(")"):
        rets = split_top(ret[1:-1])
    else:
        rets = [ret]
    outputs = []
    for i, r in enumerate(rets):
        type_, _, rname = r.rpartition(" ")
        if not type_:
            type_, rname = r, ""
        if not type_.startswith("Tensor"):
            continue
        outputs.append(rname or ("result" if len(rets) == 1 else "result%d" % i))
    return name, overload or "", tensors, outputs


def strip_noise(formula):
    formula = re.sub(r"/\*.*?\*/", " ", formula)
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', formula)


def reads(formula, name):
    """Whether `formula` reads the values of tensor `name`."""
    text = strip_noise(formula)
    word = re.escape(name)
    for pattern in METADATA_USES:
        text = re.sub(pattern.format(r"\b%s\b" % word), " ", text)
    return re.search(r"(?<![\w.>])%s\b" % word, text) is not None


def is_nondiff(formula):
    f = formula.strip()
    return f == "non_differentiable" or f.startswith("not_implemented")


def entry_facts(entry):
    """(name, roles set, saved names set) of one entry, None without tensors."""
    name, _, tensors, outputs = parse_signature(entry["name"])
    if not tensors:
        return None
    roles = set()
    saved = set()
    output_names = set(outputs) | {"result"}
    diff_outputs = entry["keys"].get("output_differentiability")
    any_output_diff = diff_outputs is None or "True" in diff_outputs
    for key, formula in entry["keys"].items():
        if key in NON_FORMULA_KEYS:
            continue
        inputs = [k.strip() for k in key.split(",")]
        if not any(i in tensors for i in inputs):
            continue  # a forward-mode formula of a named output
        if is_nondiff(formula):
            continue
        if any_output_diff:
            roles.add("Differentiable")
        for out in sorted(output_names):
            if reads(formula, out) or reads(formula, out + "_return"):
                roles.add("SavesOutput")
                saved.add(out)
        for m in re.finditer(r"\bresult\d+\b", strip_noise(formula)):
            roles.add("SavesOutput")
            saved.add(m.group(0))
        for t in tensors:
            if not reads(formula, t):
                continue
            saved.add(t)
            if t in inputs:
                roles.add("SavesInput")
            if any(i != t for i in inputs if i in tensors):
                roles.add("SavesOperands")
    return name, roles, saved


def generate(entries):
    facts = {}
    for entry in entries:
        got = entry_facts(entry)
        if got is None:
            continue
        name, roles, _ = got
        facts.setdefault(name, set()).update(roles)
    return facts


def render(facts, source):
    out = [
        "//===--- AutogradOps.def - autograd facts from derivatives.yaml --*- C++ -*-===//",
        "//",
        "// GENERATED by checks/utils/libtorch/gen_autograd_ops.py; do not edit.",
    ] + ["// " + l for l in textwrap.wrap(
        "From PyTorch's tools/autograd/derivatives.yaml: %s." % source, 76)] + [
        "//",
        "//   AUTOGRAD_OP(Name, Roles)",
        "//",
        "// Roles (OpTable.h, namespace op): Differentiable, SavesOutput, SavesInput,",
        "// SavesOperands, as the backward formulas imply them, for any overload of",
        "// the name; 0 for none. Sorted by name (autogradRolesOf bisects).",
        "//",
        "//===----------------------------------------------------------------------===//",
        "",
        "#ifndef AUTOGRAD_OP",
        "#error \"define AUTOGRAD_OP(Name, Roles) before including AutogradOps.def\"",
        "#endif",
        "",
    ]
    for name in sorted(facts):
        roles = [r for r in ROLE_ORDER if r in facts[name]]
        out.append("AUTOGRAD_OP(%s, %s)" % (name, " | ".join(roles) if roles else "0"))
    out += ["", "#undef AUTOGRAD_OP", ""]
    return "\n".join(out)


def read_def(path, macro):
    rows = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith(macro + "("):
            rows.append((number, line.rstrip("\n")))
    return rows


def parse_roles(text):
    return {r.strip() for r in text.split("|")} - {"0"}


def check_def(path):
    problems, names = [], []
    for number, line in read_def(path, "AUTOGRAD_OP"):
        m = re.match(r"AUTOGRAD_OP\((\w+), ([\w |]+)\)$", line)
        if not m:
            problems.append("%s:%d: not AUTOGRAD_OP(Name, Roles): %s" % (path, number, line))
            continue
        name, roles = m.groups()
        for role in (r.strip() for r in roles.split("|")):
            if role != "0" and role not in ROLE_ORDER:
                problems.append("%s:%d: %s: unknown role '%s'" % (path, number, name, role))
        if names and name <= names[-1]:
            problems.append("%s:%d: %s: not after '%s'" % (path, number, name, names[-1]))
        names.append(name)
    if not names:
        problems.append("%s: no AUTOGRAD_OP lines" % path)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok: %d operations" % len(names))
    return 0


def compare(ops_def, autograd_def):
    hand = {}
    for _, line in read_def(ops_def, "TORCH_OP"):
        m = re.match(r"TORCH_OP\((\w+), ([\w |]+), (\w+)\)", line)
        if m:
            hand[m.group(1)] = parse_roles(m.group(2))
    gen = {}
    for _, line in read_def(autograd_def, "AUTOGRAD_OP"):
        m = re.match(r"AUTOGRAD_OP\((\w+), ([\w |]+)\)", line)
        if m:
            gen[m.group(1)] = parse_roles(m.group(2))
    both = sorted(set(hand) & set(gen))
    count = 0
    for name in both:
        only_hand = sorted((hand[name] - gen[name]) & set(SAVES), key=SAVES.index)
        only_gen = sorted((gen[name] - hand[name]) & set(SAVES), key=SAVES.index)
        if only_hand or only_gen:
            count += 1
            print("%s: Ops.def only: %s; generated only: %s"
                  % (name, " | ".join(only_hand) or "-", " | ".join(only_gen) or "-"))
    missing = sorted(n for n in hand if n not in gen and hand[n] & set(SAVES))
    for name in missing:
        print("%s: Ops.def: %s; not in derivatives.yaml under this name"
              % (name, " | ".join(sorted(hand[name] & set(SAVES), key=SAVES.index))))
    print("%d names in both; %d disagree on the saves bits; %d with saves bits only in Ops.def"
          % (len(both), count, len(missing)))
    return 0


def camel(name):
    return "".join(p.title() for p in name.split("_"))


def check_functions_h(yaml_path, functions_h):
    """Validates the derivation against the code generator's own output."""
    entries = parse_yaml(open(yaml_path, encoding="utf-8").read())
    text = open(functions_h, encoding="utf-8").read()
    structs = {}
    for m in re.finditer(r"struct TORCH_API (\w+Backward\d+) : public \w+ \{(.*?)\n\};", text, re.S):
        structs[m.group(1)] = {v for v in re.findall(r"SavedVariable>?\s+(\w+)_;", m.group(2))}
    counters = {}
    agree = differ = unmatched = 0
    for entry in entries:
        name, _, tensors, _ = parse_signature(entry["name"])
        if not any(k not in NON_FORMULA_KEYS for k in entry["keys"]):
            continue
        base = camel(name) + "Backward"
        node = base + str(counters.get(base, 0))
        counters[base] = counters.get(base, 0) + 1
        if node not in structs:
            unmatched += 1
            continue
        got = entry_facts(entry)
        derived = got[2] if got else set()
        actual = structs[node]
        if derived == actual:
            agree += 1
        else:
            differ += 1
            print("%s (%s): derived %s, Functions.h %s"
                  % (node, entry["name"].split("(")[0], sorted(derived), sorted(actual)))
    print("%d entries agree, %d differ, %d without a node of that name" % (agree, differ, unmatched))
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("yaml", nargs="?")
    p.add_argument("--source", default="source not given")
    p.add_argument("-o", "--output")
    p.add_argument("--compare-ops-def", nargs=2, metavar=("OPS_DEF", "AUTOGRAD_DEF"))
    p.add_argument("--check-def", metavar="AUTOGRAD_DEF")
    p.add_argument("--check-functions-h", metavar="FUNCTIONS_H")
    args = p.parse_args(argv)
    if args.compare_ops_def:
        return compare(*args.compare_ops_def)
    if args.check_def:
        return check_def(args.check_def)
    if not args.yaml:
        p.error("DERIVATIVES_YAML is required")
    if args.check_functions_h:
        return check_functions_h(args.yaml, args.check_functions_h)
    entries = parse_yaml(open(args.yaml, encoding="utf-8").read())
    text = render(generate(entries), args.source)
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
