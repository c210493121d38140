#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Builds the section 1 manual page of a Python tool from its command line.

The page of tools/weave-trace is made from what the tool itself holds: its
argparse parser (parser()), its DESCRIPTION, EXAMPLE, OPEN and EXIT, and
its docstring, so that nothing is written twice; scripts/man.py's wrap()
and write() lay it out as they do libweave's pages.

Usage: man-tool.py TOOL OUT_DIR VERSION   writes OUT_DIR/man1/NAME.1
"""
import importlib.machinery
import importlib.util
import os
import sys
import time


def load(name, path):
    """The module of the Python file at @path, whatever its name ends in."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def roff(text):
    """@text as a roff text line: backslashes and dashes escaped."""
    text = text.replace('\\', '\\e').replace('-', '\\-')
    return '\\&' + text if text[:1] in ('.', "'") else text


def page(tool, version, date):
    """The lines of the page of @tool, a loaded module."""
    p = tool.parser()
    name = p.prog
    summary = tool.__doc__.split('\n')[0].split(': ', 1)[1].rstrip('.')
    out = [f'.\\" Made by scripts/man-tool.py from {name}\'s command line:',
           f'.\\" edit {name} there.',
           f'.TH {name.upper()} 1 {date} "weave {version}" "weave Manual"',
           '.SH NAME', f'{roff(name)} \\- {roff(summary)}',
           '.SH SYNOPSIS', f'.B {roff(name)}']
    opts = [a for a in p._actions if a.option_strings]
    args = [a for a in p._actions if not a.option_strings]
    for a in opts:
        if a.dest == 'help':
            continue
        arg = f' \\fI{a.metavar or a.dest.upper()}\\fP' if a.nargs != 0 \
            else ''
        out.append(f'[\\fB{roff(a.option_strings[-1])}\\fP{arg}]')
    out += [f'.I {a.dest}' for a in args]
    out += ['.SH DESCRIPTION', roff(tool.DESCRIPTION), '.PP',
            roff(' '.join(tool.__doc__.split('\n\n')[1].split()))]
    out.append('.SH OPTIONS')
    for a in args + opts:
        if a.option_strings:
            flags = ', '.join(f'\\fB{roff(f)}\\fP' for f in a.option_strings)
            if a.nargs != 0:
                flags += f' \\fI{a.metavar or a.dest.upper()}\\fP'
        else:
            flags = f'\\fI{a.dest}\\fP'
        out += ['.TP', flags, roff(a.help[0].upper() + a.help[1:]) + '.']
    out += ['.SH EXIT STATUS', roff(tool.EXIT), '.SH EXAMPLES',
            '.nf', '.RS 4'] + [roff(line) for line in tool.EXAMPLE] + \
        ['.RE', '.fi', '.PP', roff(tool.OPEN),
         '.SH SEE ALSO', '\\fBweave\\fP(7), \\fBtrace\\-cmd\\fP(1)']
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[-1])
    path, out, version = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    man = load('man', os.path.join(here, 'man.py'))
    tool = load('tool', path)
    date = time.strftime('%Y-%m-%d', time.gmtime(os.path.getmtime(path)))
    name = os.path.basename(path)
    man.write(f'{out}/man1/{name}.1', page(tool, version, date))
    return 0


if __name__ == '__main__':
    sys.exit(main())
