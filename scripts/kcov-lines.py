#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measures the KCOV line and function coverage of kmod/ that sets of PCs
reach in weave.ko, the same way for each set: syzkaller's (its manager's
/rawcover) and weave's own fuzzer's (tools/kcov/kcov-collect.c).

Every PC KCOV can report in weave.ko's .text is the return address of a
call to __sanitizer_cov_trace_pc, found from the module's relocations; the
call is mapped to a line of kmod/ by addr2line (the innermost inlined frame
that is in kmod/) and to a function by the symbol table.  A set is given
as NAME=FILE@TEXT: FILE holds hexadecimal PCs, TEXT the address of
weave.ko's .text in the guest that recorded them.

Usage: scripts/kcov-lines.py WEAVE_KO NAME=FILE@TEXT... [--unreached]
"""
import bisect
import re
import subprocess
import sys


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          check=True).stdout


def text_index(ko):
    for m in re.finditer(r'^\s*\[\s*(\d+)\]\s+(\S+)', run('readelf', '-SW', ko), re.M):
        if m.group(2) == '.text':
            return m.group(1)
    sys.exit('kcov-lines: no .text in ' + ko)


def call_sites(ko):
    """Offsets in .text of the instruction after each KCOV call."""
    sites, inside = [], False
    for line in run('readelf', '-rW', ko).splitlines():
        if line.startswith('Relocation section'):
            inside = "'.rela.text'" in line
            continue
        f = line.split()
        if inside and len(f) >= 5 and f[4] == '__sanitizer_cov_trace_pc':
            sites.append(int(f[0], 16) + 4)
    return sorted(set(sites))


def functions(ko):
    idx, funcs = text_index(ko), []
    for line in run('readelf', '-sW', ko).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == 'FUNC' and f[6] == idx:
            funcs.append((int(f[1], 16), int(f[2]), f[7]))
    return sorted(funcs)


def lines_of(ko, sites):
    """The kmod/ line of each call site, or None."""
    query = ''.join('0x%x\n' % (s - 5) for s in sites)
    out = run('addr2line', '-e', ko, '-j', '.text', '-a', '-i', stdin=query)
    result, frames = [], None
    for line in out.splitlines() + ['0x']:
        if line.startswith('0x'):
            if frames is not None:
                result.append(next((fr for fr in frames if fr[0].startswith('kmod/')), None))
            frames = []
            continue
        loc = line.split(' ')[0]
        path, _, num = loc.rpartition(':')
        if num.isdigit():
            frames.append((re.sub(r'.*/kmod/', 'kmod/', path), int(num)))
    return result


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) < 2:
        sys.exit(__doc__)
    ko = args[0]
    sites = call_sites(ko)
    line = dict(zip(sites, lines_of(ko, sites)))
    funcs = functions(ko)
    starts = [f[0] for f in funcs]

    def func_of(site):
        i = bisect.bisect_right(starts, site - 5) - 1
        if i >= 0 and site - 5 < funcs[i][0] + funcs[i][1]:
            return funcs[i][2]
        return None

    all_lines = {v for v in line.values() if v}
    all_funcs = {func_of(s) for s in sites if line[s]} - {None}
    print('weave.ko: %d KCOV call sites, %d lines and %d functions of kmod/'
          % (len(sites), len(all_lines), len(all_funcs)))
    site_set, reached_by = set(sites), {}
    for spec in args[1:]:
        name, _, rest = spec.partition('=')
        path, _, text = rest.rpartition('@')
        base = int(text, 16)
        pcs = set()
        with open(path) as f:
            for tok in f.read().split():
                pcs.add(int(tok, 16) - base)
        hit = pcs & site_set
        hit_lines = {line[s] for s in hit if line[s]}
        hit_funcs = {func_of(s) for s in hit if line[s]} - {None}
        reached_by[name] = hit_funcs
        print('%s: lines %d of %d (%.1f%%), functions %d of %d (%.1f%%); '
              '%d PCs at its KCOV call sites, %d elsewhere in .text'
              % (name, len(hit_lines), len(all_lines),
                 100.0 * len(hit_lines) / max(len(all_lines), 1),
                 len(hit_funcs), len(all_funcs),
                 100.0 * len(hit_funcs) / max(len(all_funcs), 1),
                 len(hit), len({p for p in pcs if 0 <= p < sites[-1] + 16} - site_set)))
    if '--unreached' in sys.argv:
        reached = set().union(*reached_by.values())
        print('functions none of them reaches:')
        for fn in sorted(all_funcs - reached):
            print('  ' + fn)


if __name__ == '__main__':
    main()
