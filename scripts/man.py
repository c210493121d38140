#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Builds libweave's manual pages from the kernel-doc of its headers.

Section 3 gets one page per function (and macro) that libshim/weave.h
documents, made by the kernel's `kernel-doc -man` and rewritten here into
a libweave page: section 3, a synopsis with its #include, the arguments,
RETURN VALUE and SEE ALSO.  The structs and enums of uapi/weave_drm.h
that those pages name get a page each, made the same way.  weave(7) is
man/weave.7, a hand-written overview, with the DOC sections of weave.h
put in at its "@LIBRARY@" line (taken from kernel-doc's -rst output: its
-man output drops the blank lines of DOC sections, and with them the
literal blocks).  Nothing is written twice: edit the comments in the
headers, not the pages.

Usage: man.py KERNEL_DOC OUT_DIR VERSION   writes OUT_DIR/man3, OUT_DIR/man7
       man.py --check OUT_DIR              every function of weave.h has a
                                           page in OUT_DIR/man3
"""
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import time

HEADER = 'libshim/weave.h'
UAPI = 'uapi/weave_drm.h'
OVERVIEW = 'man/weave.7'
TITLE = 'libweave Manual'
# Pages outside libweave that its pages name, with their sections.
OTHERS = {'mmap': 2, 'munmap': 2, 'open': 2, 'close': 2, 'snprintf': 3}


def kernel_doc(kdoc, mode, path, names=()):
    """Returns the output of kernel-doc MODE on PATH (for NAMES only)."""
    args = ['perl', kdoc, mode]
    for n in names:
        args += ['-function', n]
    return subprocess.run(args + [path], capture_output=True, text=True,
                          check=True).stdout


def header_functions():
    """(declared, inline): weave.h's functions, as scripts/abi-check.py
    finds them."""
    spec = importlib.util.spec_from_file_location(
        'abi_check', os.path.join(os.path.dirname(__file__), 'abi-check.py'))
    abi = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(abi)
    return abi.header_functions(HEADER)


def split_pages(text):
    """Splits -man output into [(th_fields, [(section, lines)])]."""
    pages = []
    for line in text.splitlines():
        if line.startswith('.TH '):
            pages.append((shlex.split(line[4:]), []))
        elif line.startswith('.SH '):
            pages[-1][1].append((line[4:].strip('"'), []))
        elif pages and pages[-1][1]:
            pages[-1][1][-1][1].append(line)
    return pages


class Builder:
    """Turns kernel-doc's pages into libweave's."""

    def __init__(self, kdoc, version):
        self.kdoc = kdoc
        self.version = version
        mtime = max(os.path.getmtime(p) for p in (HEADER, UAPI, OVERVIEW))
        self.date = time.strftime('%Y-%m-%d', time.gmtime(mtime))
        self.funcs = {}         # name: [(section, lines)], in header order
        self.types = {}         # 'struct x' or 'enum x': same
        self.docs = []          # DOC section titles of weave.h, in order
        self.inline = header_functions()[1]
        self.pages = {}         # function name: its page, once made

    def th(self, name, section):
        return (f'.TH {name.upper()} {section} {self.date} '
                f'"libweave {self.version}" "{TITLE}"')

    def refs(self, line, here=None):
        """Cross-references of a prose line, as man pages write them."""
        def func(m):
            name = m.group(1)
            if name in self.funcs:
                return f'\\fB{name}\\fP(3)' if name != here else \
                    f'\\fB{name}\\fP()'
            if name in OTHERS:
                return f'\\fB{name}\\fP({OTHERS[name]})'
            return f'\\fB{name}\\fP()'
        line = re.sub(r'\\fB(\w+)\\fP', func, line)
        return line

    @staticmethod
    def docrefs(lines, here):
        """References to DOC sections, which may span lines: weave.h's are
        subsections of weave(7), the uAPI's are in Documentation/weave.rst."""
        def doc(m):
            if m.group(2) or here.startswith('drm_weave_'):
                return (f'the uAPI\'s "{m.group(1)}" (in '
                        'Documentation/weave.rst)')
            if here == 'weave':
                return f'"{m.group(1).capitalize()}" below'
            # \fR: refs() takes \fBname\fP for a function of ours.
            return f'"{m.group(1).capitalize()}" in \\fBweave\\fR(7)'
        text = re.sub(r'"DOC:\s+([^"]+)"( of the uAPI)?', doc,
                      '\n'.join(lines))
        return text.split('\n')

    @staticmethod
    def plain(text):
        """A NAME line: kernel-doc's markup taken out."""
        text = re.sub(r'[%@]((?:struct |enum )?\w)', r'\1', text)
        return re.sub(r'&((?:struct |enum )?\w)', r'\1', text)

    def prose(self, lines, here):
        """Prose of -man output: paragraphs, "::" literal blocks, refs."""
        out = []
        literal = False
        for line in self.docrefs(lines, here) + ['']:
            if literal and line:
                # kernel-doc highlighted what was code: undo it.
                line = re.sub(r'\\fB(\w+)\\fP', r'\1()', line)
                out.append(re.sub(r'\\fI(\w+)\\fP', r'&\1', line))
                continue
            if literal and out[-1] != '.nf':
                out += ['.fi', '.RE']
                literal = False
            if not line:
                if out and out[-1] not in ('.PP', '.nf'):
                    out.append('.PP')
                continue
            if line.endswith('::'):
                line = line[:-1]
                literal = True
                out += [self.refs(line, here), '.PP', '.RS 4', '.nf']
                continue
            out.append(self.refs(line, here))
        while out and out[-1] == '.PP':
            out.pop()
        return out

    def items(self, lines, font, here):
        """A list of kernel-doc's .IP items, as .TP items in FONT."""
        out = []
        text = []
        for l in lines + ['.IP "" 12']:
            m = re.match(r'\.IP "(.*)" 12$', l)
            if not m:
                text.append(l.rstrip())
                continue
            out += self.prose(text, here)
            text = []
            if m.group(1):
                out += ['.TP', f'{font} {m.group(1)}']
        return out

    @staticmethod
    def synopsis(lines):
        """The prototype of a function's kernel-doc synopsis, as .BI lines."""
        # '.B "TYPE" name' for a function, '.B "NAME' for a macro.
        m = re.match(r'\.B "([^"]*)(?:" (\w+))?$', lines[0])
        ret, name = m.group(1), m.group(2) or m.group(1)
        params = [re.match(r'\.BI "\(?(.*?) *"', l).group(1)
                  for l in lines[1:] if l.startswith('.BI')]
        if ret == name:         # a macro
            head = f'#define {name}('
        else:
            head = f'{ret} {name}('
            if ret.endswith('*'):
                head = f'{ret}{name}('
        if params == ['void']:
            return [f'.B "{head}void);"']
        out = []
        pad = ' ' * len(head)
        for i, p in enumerate(params):
            m = re.match(r'(.*?)(\w+)$', p)
            ptype, pname = m.group(1), m.group(2)
            end = ');' if i == len(params) - 1 else ','
            if ret == name:
                end = ')' if end == ');' else ','
            lead = head if i == 0 else pad
            out.append(f'.BI "{lead}{ptype}" {pname} "{end}"')
        return out

    @staticmethod
    def type_synopsis(lines):
        """A struct's or enum's definition from its kernel-doc synopsis."""
        body = []
        for l in lines:
            m = re.match(r'\.BI "(.*)"?$', l)
            if m:
                if m.group(1).strip(' "'):
                    body.append(m.group(1).rstrip('"'))
            elif l.strip() == ',' and body:
                body[-1] += ','
            elif l.strip() and not l.startswith('.'):
                body.append(l.strip())
        return [re.sub(r'^\.', r'\\&.', b) for b in body]

    def parse(self):
        for th, sections in split_pages(
                kernel_doc(self.kdoc, '-man', HEADER)):
            if th[0] == 'Kernel API':
                self.docs.append(sections[0][0])
            else:
                self.funcs[th[0]] = sections
        named = set()
        for sections in self.funcs.values():
            for _, lines in sections:
                for l in lines:
                    named.update(re.findall(r'(?<![a-z_])(struct|enum) (drm_weave_\w+)',
                                            l))
        have = kernel_doc(self.kdoc, '-man', UAPI,
                          sorted(n for _, n in named))
        for th, sections in split_pages(have):
            self.types[th[2]] = sections

    def see_also(self, name, lines, full=None):
        text = '\n'.join(lines)
        pages = set(re.findall(r'\\fB(weave_\w+)\\fP\(3\)', text))
        if full:
            pages.update(f for f, page in self.pages.items()
                         if re.search(rf'(?<![a-z_]){full}\b', '\n'.join(page)))
        pages = sorted(pages - {name})
        pages += sorted(t.split()[1] for t in self.types
                        if re.search(rf'(?<![a-z_]){t}\b', text) and
                        t.split()[1] != name)
        out = ['.SH SEE ALSO']
        out += [f'.BR {p} (3),' for p in pages]
        out.append('.BR weave (7)')
        return out

    def function_page(self, name):
        sections = dict(self.funcs[name])
        desc = sections['NAME'][0].split(' \\- ', 1)[1]
        out = [self.th(name, 3), '.SH NAME', f'{name} \\- {self.plain(desc)}',
               '.SH LIBRARY', "weave's user-space library",
               '.RI ( libweave ", " \\-lweave )',
               '.SH SYNOPSIS', '.nf', '.B #include <weave.h>', '.PP']
        out += self.synopsis(sections['SYNOPSIS']) + ['.fi']
        args = sections.get('ARGUMENTS', [])
        if args and args != ['.IP "void" 12', 'no arguments']:
            out.append('.SH ARGUMENTS')
            out += self.items(args, '.I', name)
        for title, heading in (('DESCRIPTION', 'DESCRIPTION'),
                               ('RETURN', 'RETURN VALUE')):
            if title in sections:
                out += [f'.SH {heading}'] + self.prose(sections[title], name)
        if name in self.inline:
            out += ['.SH NOTES', f'\\fB{name}\\fP() is static inline in',
                    '.IR <weave.h> :',
                    'it fills or reads the uAPI structs at the sizes of the',
                    "program's own header.",
                    'libweave.so has no symbol for it, or one of libweave 1.0',
                    'kept for the programs linked to it.']
        self.pages[name] = out
        return out + self.see_also(name, out)

    def type_page(self, full):
        sections = self.types[full]
        kind, name = full.split()
        desc = sections[0][1][0].split(' \\- ', 1)[1]
        out = [self.th(name, 3), '.SH NAME',
               f'{name} \\- {self.plain(desc)}',
               '.SH SYNOPSIS', '.nf', '.B #include <weave.h>', '.PP']
        out += self.type_synopsis(sections[1][1]) + ['.fi']
        for title, lines in sections[2:]:
            out.append(f'.SH {title.upper()}')
            out += self.items(lines, '.B', name)
        return out + self.see_also(name, out, full)

    def library(self):
        """weave.h's DOC sections, as subsections of weave(7)."""
        out = []
        for title in self.docs:
            rst = kernel_doc(self.kdoc, '-rst', HEADER, [title])
            out.append(f'.SS {title.capitalize()}')
            out += self.rst_prose(rst.strip('\n').splitlines())
        return out

    def rst_prose(self, lines):
        """The little reStructuredText of weave.h's DOC sections, as man."""
        out = []
        literal = False
        for line in self.docrefs(lines, 'weave') + ['']:
            if literal and (not line or line[0] == ' '):
                out.append(re.sub(r'^\.', r'\\&.', line.strip()))
                continue
            if literal:
                while out[-1] == '':
                    out.pop()
                out += ['.fi', '.RE', '.PP']
                literal = False
            if not line:
                if out and out[-1] not in ('.PP', '.nf'):
                    out.append('.PP')
                continue
            # Constants bold, closed by \fR: refs() takes \fBx\fP for a
            # function.
            line = re.sub(r'``([^`]+)``', r'\\fB\1\\fR', line)
            line = re.sub(r':c:type:`([^<`]+?) ?<[^>]*>`', r'\\fI\1\\fP', line)
            line = re.sub(r'\b(\w+)\(\)', r'\\fB\1\\fP', line)
            if line.endswith('::'):
                out += [self.refs(line[:-1], 'weave'), '.PP', '.RS 4', '.nf']
                literal = True
                continue
            out.append(self.refs(line, 'weave'))
        while out and out[-1] in ('.PP', ''):
            out.pop()
        if literal:
            out += ['.fi', '.RE']
        return out


def wrap(lines, width=80):
    """Text lines of fill mode cut at spaces to at most WIDTH bytes."""
    out = []
    fill = True
    for line in lines:
        if line.startswith('.'):
            fill = {'.nf': False, '.fi': True}.get(line, fill)
        while fill and not line.startswith('.') and len(line) > width:
            cut = line.rfind(' ', 0, width + 1)
            if cut <= 0:
                break
            out.append(line[:cut].rstrip())
            line = line[cut + 1:].lstrip()
            if line[:1] in ('.', "'"):
                line = '\\&' + line
        out.append(line)
    return out


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = '\n'.join(wrap(lines)) + '\n'
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def build(kdoc, out, version):
    b = Builder(kdoc, version)
    b.parse()
    stamp = ['.\\" Made by scripts/man.py from the kernel-doc of '
             f'{HEADER} and {UAPI}:', '.\\" edit the comments there.']
    made = set()
    for name in b.funcs:
        write(f'{out}/man3/{name}.3', stamp + b.function_page(name))
        made.add(f'{name}.3')
    for full in b.types:
        name = full.split()[1]
        write(f'{out}/man3/{name}.3', stamp + b.type_page(full))
        made.add(f'{name}.3')
    for old in os.listdir(f'{out}/man3'):
        if old not in made:
            os.remove(f'{out}/man3/{old}')
    with open(OVERVIEW) as f:
        page = f.read().splitlines()
    i = page.index('.\\" @LIBRARY@')
    page = page[:i] + b.library() + page[i + 1:]
    page = [l.replace('@VERSION@', version).replace('@DATE@', b.date)
            for l in page]
    write(f'{out}/man7/weave.7', page)


def check(out):
    """Every function weave.h declares has its page; returns the problems."""
    declared, inline = header_functions()
    problems = []
    for name in sorted(declared | inline):
        path = f'{out}/man3/{name}.3'
        if not os.path.exists(path):
            problems.append(f'{name}: no page {path}')
            continue
        with open(path) as f:
            if f'.TH {name.upper()} 3 ' not in f.read():
                problems.append(f'{path}: not the section 3 page of {name}')
    if not os.path.exists(f'{out}/man7/weave.7'):
        problems.append(f'no {out}/man7/weave.7')
    return problems


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--check':
        problems = check(sys.argv[2])
        for p in problems:
            print(p)
        return 1 if problems else 0
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[-1])
    build(*sys.argv[1:])
    return 0


if __name__ == '__main__':
    sys.exit(main())
