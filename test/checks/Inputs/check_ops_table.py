#!/usr/bin/env python3
"""Checks checks/utils/libtorch/Ops.def against OpTable.h.

usage: check_ops_table.py OPS_DEF OPTABLE_H

Every line is TORCH_OP(Name, Roles, Boundary); names are unique and sorted
(lookupOp searches the table by bisection); every role and boundary is an
enumerator of OpTable.h. Prints one line per problem and exits 1 if any.
"""
import re
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: check_ops_table.py OPS_DEF OPTABLE_H", file=sys.stderr)
        return 2
    ops_def, table_h = sys.argv[1], sys.argv[2]
    header = open(table_h, encoding="utf-8").read()
    role_bits = re.findall(r"^\s*(\w+) = 1ull << (\d+),", header, re.M)
    roles = set(name for name, _ in role_bits)
    boundary_enum = re.search(r"enum Boundary[^{]*\{(.*?)\};", header, re.S)
    boundaries = set(re.findall(r"^\s*(\w+),", boundary_enum.group(1), re.M)) if boundary_enum else set()
    problems = []
    names = []
    # Two roles on one bit are one role: every line with either has both.
    owner = {}
    for name, bit in role_bits:
        if bit in owner:
            problems.append("%s: %s and %s share bit %s" % (table_h, owner[bit], name, bit))
        owner.setdefault(bit, name)
    for number, line in enumerate(open(ops_def, encoding="utf-8"), 1):
        if not line.startswith("TORCH_OP("):
            continue
        m = re.match(r"TORCH_OP\((\w+), ([\w |]+), (\w+)\)\s*$", line)
        if not m:
            problems.append("%s:%d: not TORCH_OP(Name, Roles, Boundary): %s" % (ops_def, number, line.strip()))
            continue
        name, role_list, boundary = m.groups()
        for role in (r.strip() for r in role_list.split("|")):
            if role != "0" and role not in roles:
                problems.append("%s:%d: %s: unknown role '%s'" % (ops_def, number, name, role))
        if boundary not in boundaries:
            problems.append("%s:%d: %s: unknown boundary '%s'" % (ops_def, number, name, boundary))
        if names and name <= names[-1]:
            problems.append("%s:%d: %s: not after '%s' (the table is sorted and has no duplicates)"
                            % (ops_def, number, name, names[-1]))
        names.append(name)
    if not names:
        problems.append("%s: no TORCH_OP lines" % ops_def)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok: %d operations, %d roles, %d boundaries" % (len(names), len(roles), len(boundaries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
