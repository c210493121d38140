#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Expands the kernel-doc directives of an .rst file, as the kernel's Sphinx
extension does, so that the documentation reads whole without Sphinx.

Usage: render-doc.py KERNEL_DOC_SCRIPT IN.rst OUT.rst
Fails if kernel-doc warns about any file it is asked for, or if an image
that IN.rst shows is missing; the images are copied beside OUT.rst.
"""
import os
import re
import shutil
import subprocess
import sys

DIRECTIVE = re.compile(r'^\.\. kernel-doc:: (\S+)\n((?:   :\w+:.*\n)*)', re.M)


def expand(kdoc, match):
    path, opts = match.group(1), match.group(2)
    cmd = ['perl', kdoc, '-sphinx-version', '3.0', '-rst']
    for name, value in re.findall(r'   :(\w+):\s*(.*)', opts):
        if name in ('doc', 'functions', 'identifiers'):
            for ident in value.split(',') if name != 'doc' else [value]:
                cmd += ['-function', ident.strip()]
    cmd.append(path)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode or res.stderr.strip():
        sys.stderr.write(f'{path}: {res.stderr}')
        raise SystemExit(1)
    return res.stdout.strip('\n') + '\n'


def main():
    kdoc, src, dst = sys.argv[1:4]
    with open(src) as f:
        text = f.read()
    text = DIRECTIVE.sub(lambda m: expand(kdoc, m), text)
    with open(dst, 'w') as f:
        f.write(text)
    for image in re.findall(r'^\.\. image:: (\S+)$', text, re.M):
        path = os.path.join(os.path.dirname(src), image)
        if not os.path.isfile(path):
            sys.exit(f'{src}: no image {path}')
        shutil.copy(path, os.path.join(os.path.dirname(dst) or '.', image))


if __name__ == '__main__':
    main()
