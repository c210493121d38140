#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# README.md stays true: its one C program compiles against libweave as
# shown, every link into Documentation/ names a file and a section there,
# and every section of Documentation/weave.rst (and every file of
# Documentation/) is linked from it, one step from the README.  The checker
# is tried on broken READMEs too, which it must reject.  Prints TAP.
#
# Usage: tests/build/readme.py BUILD_DIR
import os
import re
import subprocess
import sys

DOCS = 'Documentation'
# A section title's underline: one punctuation character repeated.
UNDERLINE = re.compile(r'([=\-~^"\'`#*+:.])\1{3,}$')
LINK = re.compile(r'\]\(((?:\./)?Documentation/[^)#\s]+)(?:#([^)\s]+))?\)')


def make_id(title):
    """The id docutils gives a section titled TITLE (its anchor)."""
    s = re.sub(r'[^a-z0-9]+', '-', title.lower())
    return re.sub(r'^[^a-z]+', '', s).strip('-')


def sections(text):
    """The section titles of reStructuredText TEXT, in order."""
    lines = text.split('\n')
    titles = []
    for i in range(1, len(lines)):
        title = lines[i - 1].rstrip()
        if (UNDERLINE.match(lines[i]) and title and
                not title[0].isspace() and
                not UNDERLINE.match(title) and
                len(lines[i]) >= len(title)):
            titles.append(title)
    return titles


def c_blocks(text):
    """The fenced ```c blocks of markdown TEXT."""
    return re.findall(r'^```c\n(.*?)^```$', text, re.M | re.S)


def problems(readme, docs):
    """What is wrong with README (text) against DOCS {path: text}."""
    bad = []
    blocks = c_blocks(readme)
    if len(blocks) != 1:
        bad.append(f'{len(blocks)} C programs, not one')
    linked = {}
    for path, frag in LINK.findall(readme):
        path = path.removeprefix('./')
        if path not in docs:
            bad.append(f'link to {path}, which does not exist')
            continue
        linked.setdefault(path, set())
        if frag:
            if frag not in {make_id(t) for t in sections(docs[path])}:
                bad.append(f'link to {path}#{frag}, which names no section')
            linked[path].add(frag)
    for path in sorted(docs):
        if path.endswith('.rst') and path not in linked:
            bad.append(f'no link to {path}')
    main = f'{DOCS}/weave.rst'
    if main in docs:
        # Its sections, less its title (the first), each linked.
        for title in sections(docs[main])[1:]:
            if make_id(title) not in linked.get(main, set()):
                bad.append(f'no link to "{title}" of {main}')
    return bad


def tap(n, ok, what, notes=()):
    print(f'{"ok" if ok else "not ok"} {n} {what}')
    for note in notes:
        print(f'# {note}')


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    with open('README.md', encoding='utf-8') as f:
        readme = f.read()
    docs = {}
    for name in sorted(os.listdir(DOCS)):
        if name.endswith('.rst'):
            with open(f'{DOCS}/{name}', encoding='utf-8') as f:
                docs[f'{DOCS}/{name}'] = f.read()
    docs[f'{DOCS}/weave-pipeline.svg'] = ''

    print('TAP version 13')
    print('1..6')
    bad = problems(readme, docs)
    tap(1, not bad, 'README.md: one C program; its links to Documentation/ '
        'resolve; every file and every section of weave.rst linked', bad)

    out = os.path.join(build, 'readme-check')
    os.makedirs(out, exist_ok=True)
    blocks = c_blocks(readme)
    src = os.path.join(out, 'readme.c')
    with open(src, 'w', encoding='utf-8') as f:
        f.write(blocks[0] if blocks else '')
    drm = subprocess.run(['pkg-config', '--cflags', '--libs', 'libdrm'],
                         capture_output=True, text=True).stdout.split()
    cc = subprocess.run(
        [os.environ.get('CC', 'cc'), '-std=gnu11', '-Wall', '-Wextra',
         '-Werror', '-Ilibshim', '-Iuapi', '-o', os.path.join(out, 'readme'),
         src, os.path.join(build, 'lib', 'libweave.a')] + drm,
        capture_output=True, text=True)
    tap(2, cc.returncode == 0 and bool(blocks),
        "README.md's C program compiles and links against libweave with "
        '-Wall -Wextra -Werror', (cc.stdout + cc.stderr).splitlines()[-20:])

    # The checker itself, on READMEs it must reject.
    main_doc = f'{DOCS}/weave.rst'
    first = make_id(sections(docs[main_doc])[1])
    cases = [
        ('a README without its C program',
         re.sub(r'^```c\n.*?^```$\n', '', readme, flags=re.M | re.S),
         'C programs'),
        ('a link to a section that does not exist',
         readme + f'\n[x]({main_doc}#no-such-section)\n', 'names no section'),
        ('a section of weave.rst left out',
         readme.replace(f'{main_doc}#{first})', f'{main_doc})'),
         'no link to'),
        ('a file of Documentation/ left out',
         readme.replace(f'{DOCS}/weave-reliability.rst', 'x'),
         'weave-reliability.rst'),
    ]
    for n, (what, text, want) in enumerate(cases, 3):
        bad = problems(text, docs)
        tap(n, any(want in b for b in bad), f'the check rejects {what}', bad)


if __name__ == '__main__':
    main()
