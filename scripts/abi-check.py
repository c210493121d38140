#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that libweave's ABI is exactly what its header declares: the
functions declared in weave.h, the symbols listed in the version script, and
the dynamic symbols libweave.so exports must be the same set.

Usage: abi-check.py weave.h libweave.map libweave.so
"""
import re
import subprocess
import sys


def header_functions(path):
    with open(path) as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    return set(re.findall(r'\b(weave_\w+)\s*\(', text))


def map_symbols(path):
    with open(path) as f:
        text = re.sub(r'#.*', '', f.read())
    glob = re.search(r'global:(.*?)local:', text, re.S)
    return set(re.findall(r'\b(weave_\w+)\s*;', glob.group(1) if glob else ''))


def exported(path):
    out = subprocess.run(['nm', '-D', '--defined-only', path],
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split('@')[0] for line in out.splitlines()
            if line.split()[1] in ('T', 'W')}


def main():
    sets = {'weave.h': header_functions(sys.argv[1]),
            'libweave.map': map_symbols(sys.argv[2]),
            'libweave.so': exported(sys.argv[3])}
    ok = True
    for a in sets:
        for b in sets:
            extra = sets[a] - sets[b]
            if a < b and extra or a > b and extra:
                print(f'in {a} but not {b}: {" ".join(sorted(extra))}')
                ok = False
    print(f'{len(sets["libweave.so"])} exported functions')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
