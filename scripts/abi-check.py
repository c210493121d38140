#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that libweave's ABI is exactly what its header and version script
declare:

- the functions weave.h declares (not its static inline ones) are exactly
  those libweave.so exports at a default version (name@@NODE), each in the
  node of libweave.map that lists it;
- every name libweave.map lists is exported, in its node;
- a name exported only at a non-default version (name@NODE, kept for the
  programs linked before it became inline) is a static inline function of
  weave.h.

Usage: abi-check.py weave.h libweave.map libweave.so
"""
import re
import subprocess
import sys


def header_functions(path):
    """Returns (declared, inline): the extern and static inline functions."""
    with open(path) as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    text = re.sub(r'^#.*?(?<!\\)$', '', text, flags=re.S | re.M)
    names = set(re.findall(r'\b(weave_\w+)\s*\(', text))
    inline = set(re.findall(r'static\s+inline\b[^;{(]*?\b(weave_\w+)\s*\(',
                            text))
    return names - inline, inline


def map_nodes(path):
    """Returns {name: node} for every global of every node."""
    with open(path) as f:
        text = re.sub(r'/\*.*?\*/|#.*', '', f.read(), flags=re.S)
    nodes = {}
    for node, body in re.findall(r'(\w[\w.]*)\s*\{(.*?)\}', text, re.S):
        glob = re.search(r'global:(.*?)(local:|$)', body, re.S)
        for name in re.findall(r'\b(weave_\w+)\s*;',
                               glob.group(1) if glob else ''):
            nodes[name] = node
    return nodes


def exported(path):
    """Returns ({name: node} at default versions, {name: node} otherwise)."""
    out = subprocess.run(['nm', '-D', '--defined-only', path],
                         capture_output=True, text=True, check=True).stdout
    default, compat = {}, {}
    for line in out.splitlines():
        fields = line.split()
        if fields[1] not in ('T', 'W'):
            continue
        m = re.match(r'(\w+)(@@?)(.*)$', fields[-1])
        if not m:
            default[fields[-1]] = None
        elif m.group(2) == '@@':
            default[m.group(1)] = m.group(3)
        else:
            compat[m.group(1)] = m.group(3)
    return default, compat


def main():
    declared, inline = header_functions(sys.argv[1])
    nodes = map_nodes(sys.argv[2])
    default, compat = exported(sys.argv[3])
    problems = []

    def diff(what, a, b):
        if a - b:
            problems.append(f'{what}: {" ".join(sorted(a - b))}')

    diff('declared in weave.h, not exported', declared, set(default))
    diff('exported, not declared in weave.h', set(default), declared)
    diff('in libweave.map, not exported', set(nodes),
         set(default) | set(compat))
    diff('exported, not in libweave.map', set(default) | set(compat),
         set(nodes))
    diff('exported at an old version only, not inline in weave.h',
         set(compat), inline)
    for name, node in list(default.items()) + list(compat.items()):
        if name in nodes and nodes[name] != node:
            problems.append(f'{name} exported at {node}, '
                            f'listed in {nodes[name]}')
    for p in problems:
        print(p)
    print(f'{len(default)} exported functions, {len(compat)} kept for '
          f'old programs, {len(inline)} inline in weave.h')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
