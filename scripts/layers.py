#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Holds kmod/ to the layer table of Documentation/weave.rst.

Reads the sources (not a build), so it needs no kernel.  Each file's stem
is its name without the extension and without a ``_types`` suffix; an edge
goes from stem A to stem B when a file of A includes B's header or names a
function, static inline or function-like macro that B defines.  It fails
on:

- a stem missing from the table, or listed twice, or listed and absent;
- an edge that goes up the table;
- a circle among stems, inside a layer too;
- a function name defined in two files;
- a non-static function (or a header's static inline) without one of its
  layer's prefixes;
- a file over 800 lines, a function body over 80 lines.

Usage: layers.py [--root DIR] [--dot FILE] [--self-test]
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 80
TABLE_MARK = '.. layer table'

IDENT = re.compile(r'\b[A-Za-z_]\w*\b')
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
MACRO = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)\(', re.M)
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do',
            'typeof', '__typeof__', 'defined', 'case'}


def stem_of(name):
    stem = os.path.splitext(name)[0]
    return stem[:-len('_types')] if stem.endswith('_types') else stem


def strip_code(text):
    """Blanks comments, strings and character constants, keeping lines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def read_table(doc):
    """Returns [(layer, [prefix], [stem])] from the table after TABLE_MARK."""
    with open(doc, encoding='utf-8') as f:
        lines = f.read().split('\n')
    try:
        at = next(i for i, l in enumerate(lines) if l.startswith(TABLE_MARK))
    except StopIteration:
        sys.exit(f'{doc}: no line starting with "{TABLE_MARK}"')
    borders = [i for i in range(at, len(lines))
               if re.fullmatch(r'=+( +=+)+ *', lines[i])]
    if len(borders) < 3:
        sys.exit(f'{doc}: the layer table has no body')
    cols = [(m.start(), m.end()) for m in re.finditer(r'=+', lines[borders[0]])]
    if len(cols) != 3:
        sys.exit(f'{doc}: the layer table needs three columns')
    layers = []
    for line in lines[borders[1] + 1:borders[2]]:
        if not line.strip():
            continue
        cell = [line[s:e if k < 2 else None].strip().replace('\\', '')
                for k, (s, e) in enumerate(cols)]
        if cell[0]:
            layers.append((cell[0], cell[1].split(), cell[2].split()))
        elif layers:
            layers[-1][1].extend(cell[1].split())
            layers[-1][2].extend(cell[2].split())
    return layers


class Func:
    def __init__(self, name, path, line, length, static):
        self.name, self.path, self.line = name, path, line
        self.length, self.static = length, static


def functions(path, code):
    """The functions a file defines: a '{' in column 0 after a signature."""
    lines = code.split('\n')
    found = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith('{'):
            i += 1
            continue
        j = i - 1
        sig = []
        while j >= 0 and lines[j].strip() and \
                not lines[j].rstrip().endswith((';', '}')) and \
                not lines[j].lstrip().startswith('#'):
            sig.insert(0, lines[j])
            j -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith('}'):
            end += 1
        text = ' '.join(sig)
        m = next((m for m in CALL.finditer(text)
                  if m.group(1) not in KEYWORDS and
                  not m.group(1).startswith('__')), None)
        if m and '=' not in text.split('(')[0]:
            static = re.search(r'\bstatic\b', text) is not None
            found.append(Func(m.group(1), path, j + 2, end - i - 1, static))
        i = end + 1
    return found


def scan(kmod):
    files = sorted(f for f in os.listdir(kmod) if f.endswith(('.c', '.h')))
    code = {}
    for f in files:
        with open(os.path.join(kmod, f), encoding='utf-8') as fh:
            code[f] = fh.read()
    return files, code


def check(root, dot=None):
    kmod = os.path.join(root, 'kmod')
    layers = read_table(os.path.join(root, 'Documentation', 'weave.rst'))
    files, raw = scan(kmod)
    errors = []
    rank, prefixes = {}, {}
    for k, (layer, pre, stems) in enumerate(layers):
        for s in stems:
            if s in rank:
                errors.append(f'{s}: listed twice in the layer table')
            rank[s] = k
            prefixes[s] = pre
    stems = {stem_of(f) for f in files}
    for s in sorted(stems - set(rank)):
        errors.append(f'{s}: missing from the layer table')
    for s in sorted(set(rank) - stems):
        errors.append(f'{s}: in the layer table but not in kmod/')

    code = {f: strip_code(raw[f]) for f in files}
    owner = {}
    defined = {}
    for f in files:
        n = raw[f].count('\n')
        if n > MAX_FILE_LINES:
            errors.append(f'kmod/{f}: {n} lines, over {MAX_FILE_LINES}')
        for fn in functions(f, code[f]):
            defined.setdefault(fn.name, []).append(fn)
            if fn.length > MAX_FUNC_LINES:
                errors.append(f'kmod/{f}:{fn.line}: {fn.name}() is '
                              f'{fn.length} lines, over {MAX_FUNC_LINES}')
            visible = f.endswith('.h') or not fn.static
            if visible:
                owner[fn.name] = stem_of(f)
            pre = prefixes.get(stem_of(f))
            # to_<type>(), the kernel's name for a container_of() helper.
            if visible and pre and not fn.name.startswith('to_') and \
                    not fn.name.startswith(tuple(pre)):
                errors.append(f'kmod/{f}:{fn.line}: {fn.name}() lacks its '
                              f'layer\'s prefix ({" ".join(pre)})')
        for m in MACRO.finditer(code[f]):
            owner.setdefault(m.group(1), stem_of(f))
    for name, fns in sorted(defined.items()):
        where = sorted({fn.path for fn in fns})
        if len(where) > 1:
            errors.append(f'{name}() is defined in {", ".join(where)}')

    edges = {s: {} for s in stems}
    for f in files:
        a = stem_of(f)
        own = {fn.name for fn in defined.get(f, [])}
        for m in INCLUDE.finditer(code[f]):
            b = stem_of(os.path.basename(m.group(1)))
            if b != a and b in stems:
                edges[a].setdefault(b, f'{f} includes {m.group(1)}.h')
        for m in IDENT.finditer(code[f]):
            b = owner.get(m.group(0))
            if b and b != a and m.group(0) not in own:
                edges[a].setdefault(b, f'{f} uses {m.group(0)}')
    for a in sorted(edges):
        for b, why in sorted(edges[a].items()):
            if a in rank and b in rank and rank[b] < rank[a]:
                errors.append(f'upward edge {a} -> {b} '
                              f'({layers[rank[a]][0]} -> '
                              f'{layers[rank[b]][0]}): {why}')
    for comp in circles(edges):
        errors.append(f'circle among {" ".join(comp)}:')
        seen = set()
        for start in comp:
            cycle = one_circle(edges, comp, start)
            key = frozenset(zip(cycle, cycle[1:] + cycle[:1]))
            if key in seen:
                continue
            seen.add(key)
            whys = '; '.join(edges[x][y] for x, y in
                             zip(cycle, cycle[1:] + cycle[:1]))
            errors.append(f'  {" -> ".join(cycle + [cycle[0]])}: {whys}')

    if dot:
        with open(dot, 'w', encoding='utf-8') as out:
            out.write('digraph kmod {\n\trankdir=TB;\n')
            for k, (layer, _, ss) in enumerate(layers):
                out.write(f'\tsubgraph cluster_{k} {{ label="{layer}"; '
                          + ' '.join(f'"{s}";' for s in ss) + ' }\n')
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    out.write(f'\t"{a}" -> "{b}";\n')
            out.write('}\n')
    return errors


def circles(edges):
    """The strongly connected components of more than one stem (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def one_circle(edges, comp, start):
    """A shortest circle through @start inside a component."""
    prev = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(edges[v]):
                if w == start:
                    path = [v]
                    while prev[path[0]] is not None:
                        path.insert(0, prev[path[0]])
                    return path
                if w in comp and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return [start]


def self_test(root):
    """Plants an upward call and an overlong function in a copy of the
    tree; the check must name both, besides what it named before.  Returns
    a list of failures."""
    layers = read_table(os.path.join(root, 'Documentation', 'weave.rst'))
    files, raw = scan(os.path.join(root, 'kmod'))
    code = {f: strip_code(raw[f]) for f in files}
    stems_c = {stem_of(f): f for f in files if f.endswith('.c')}
    top = next((fn for s in layers[0][2] if s in stems_c
                for fn in functions(stems_c[s], code[stems_c[s]])
                if not fn.static), None)
    low = next((stems_c[s] for _, _, ss in reversed(layers) for s in ss
                if s in stems_c), None)
    if top is None or low is None:
        return ['no top-layer function or bottom-layer file to plant in']
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for sub in ('kmod', 'Documentation'):
            shutil.copytree(os.path.join(root, sub), os.path.join(tmp, sub))
        before = set(check(tmp))
        body = ''.join(f'\tx += {i};\n' for i in range(MAX_FUNC_LINES + 1))
        with open(os.path.join(tmp, 'kmod', low), 'a', encoding='utf-8') as f:
            f.write(f'\nvoid planted_upward(void)\n{{\n\t{top.name}();\n}}\n'
                    f'\nstatic int planted_long(int x)\n{{\n{body}'
                    '\treturn x;\n}\n')
        errors = set(check(tmp)) - before
        if not any(e.startswith('upward edge') and f'uses {top.name}' in e
                   for e in errors):
            failures.append(f'a call from {low} to {top.name}() was not '
                            'named as an upward edge')
        if not any('planted_long()' in e for e in errors):
            failures.append('an overlong function was not named')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..'))
    ap.add_argument('--dot', help='write the stems\' graph in Graphviz form')
    ap.add_argument('--self-test', action='store_true',
                    help='check that planted violations are caught')
    args = ap.parse_args()
    if args.self_test:
        failures = self_test(args.root)
        for f in failures:
            print(f)
        return 1 if failures else 0
    errors = check(args.root, args.dot)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
