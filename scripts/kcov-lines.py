#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measures the KCOV line and function coverage of kmod/ that sets of PCs
reach in weave.ko, the same way for each set: syzkaller's (its manager's
/rawcover) and weave's own fuzzer's (tools/kcov/kcov-collect.c), each
against the weave.ko that produced it.

How a PC maps to a line:

- The coverage points are the calls to __sanitizer_cov_trace_pc that the
  compiler put at the start of each basic block, found from weave.ko's
  relocations in every executable section the module loader keeps
  (.text, .text.unlikely where the .cold parts of functions are,
  .exit.text, ...; not .init.text, which is freed once the module is
  loaded).  A point is known by its section and the offset of its call
  instruction (the relocation's offset less the opcode's byte).
- KCOV records the return address of the call (the instruction after it,
  5 bytes on).  syzkaller's /rawcover gives the address of the call
  instruction itself (the return address less 5, its
  backend.PreviousInstructionPC); kcov-collect writes KCOV's raw return
  addresses.  Each set says which (CONV "call" or "ret"), and its PCs are
  brought to call addresses.
- In the guest, the module loader lays the executable sections out one
  after the other from .text, in the order of the object's section table,
  each at its alignment (kernel/module/main.c, layout_sections()).  A set
  gives either .text's address in its guest (syzkaller's /modules "Addr",
  which is .text's, not the module's load base: it reads
  /sys/module/weave/sections/.text) and the other sections are placed by
  that rule, or a file of "SECTION ADDRESS" lines read from
  /sys/module/weave/sections, which is checked against the rule.  A PC
  maps to the point at its section and offset.  Without
  CONFIG_RANDOMIZE_BASE (the KCOV kernel leaves it off) KCOV's PCs are
  the addresses the code runs at.
- A point's line is the innermost inlined frame addr2line gives that is
  in kmod/; its function is the symbol that holds it, with the suffixes
  of the compiler's parts and clones (.cold, .part.N, .isra.N,
  .constprop.N) dropped, so that foo.cold counts as foo.  A function
  with a symbol of its own also counts as reached when a hit point lies
  in its code inlined into another (addr2line's inner frames): a global
  function whose one caller in its file inlined it keeps an out-of-line
  copy that nothing calls.  The reduced
  debug info of the KCOV kernel's builds sometimes gives only the frame
  of an inlined kernel header: such a point counts for its function
  when that function has points in kmod/, and for no line.  Other points
  with no frame in kmod/ (the DRM helpers' inline functions) are not
  counted.
- A basic block whose code is only the KCOV call may end a function as a
  tail jump (jmp __sanitizer_cov_trace_pc): KCOV then records the return
  address in the function's caller, which is no point.  Such a PC says
  that the caller ran; when it is the return of a direct call to a weave
  function F, that F ran too (F's tail-jump point is counted hit when F
  has just one); the return of a direct call into the kernel is the
  kernel's coverage, not weave's; those and the returns of indirect calls
  are counted apart, as are PCs that are none of these.

Usage: scripts/kcov-lines.py [--unreached] --set NAME KO PCS CONV BASE...
       scripts/kcov-lines.py --self-test
  PCS: a file of hexadecimal PCs (others than weave.ko's are ignored);
  CONV: call or ret; BASE: .text's address (hexadecimal) or a file of the
  guest's section addresses.  --unreached lists the functions of kmod/
  that no set reaches, each checked to hold none of the sets' PCs.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

HOOK = '__sanitizer_cov_trace_pc'
CALL_LEN = 5
SEC_RE = re.compile(r'^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)'
                    r'\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d+\s+\d+\s+(\d+)$')


def run(*cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          check=True).stdout


def base_name(sym):
    """foo.cold, foo.part.0, foo.isra.0, foo.constprop.0: foo."""
    return sym.split('.')[0] if not sym.startswith('.') else sym


class Module:
    """One weave.ko: its sections, coverage points, lines and functions."""

    def __init__(self, path):
        self.path = path
        self.data = open(path, 'rb').read()
        self.sections = {}      # index: (name, file offset, size, align)
        for line in run('readelf', '-SW', path).splitlines():
            m = SEC_RE.match(line)
            if m and 'A' in m.group(7) and 'X' in m.group(7):
                self.sections[int(m.group(1))] = (
                    m.group(2), int(m.group(5), 16), int(m.group(6), 16),
                    int(m.group(8)))
        self.byname = {v[0]: k for k, v in self.sections.items()}
        if '.text' not in self.byname:
            sys.exit('kcov-lines: no .text in ' + path)
        self.layout = self._layout()
        self._symbols()
        self._relocations()
        self._lines()

    def _layout(self):
        """Each core executable section's offset from .text in the guest."""
        size, offs = 0, {}
        for idx in sorted(self.sections):
            name, _, sz, align = self.sections[idx]
            if name.startswith('.init'):
                continue
            align = align or 1
            offs[name] = (size + align - 1) // align * align
            size = offs[name] + sz
        text = offs['.text']
        return {k: v - text for k, v in offs.items()}

    def _symbols(self):
        """Functions of each section, and every symbol's place."""
        self.funcs = collections.defaultdict(list)   # section: [(start, end, name)]
        self.symbol_at = {}                            # name: (section, value)
        files = collections.defaultdict(set)
        current = None
        for line in run('readelf', '-sW', self.path).splitlines():
            f = line.split()
            if len(f) < 8 or not f[0].endswith(':'):
                continue
            kind, ndx, name = f[3], f[6], f[7]
            if kind == 'FILE':
                current = name
                continue
            if kind != 'FUNC' or not ndx.isdigit() or int(ndx) not in self.sections:
                continue
            if re.match(r'_sub_[ID]_\d', name):
                continue    # a file's constructor or destructor, of the compiler
            sec = self.sections[int(ndx)][0]
            start = int(f[1], 16)
            self.symbol_at[name] = (sec, start)
            self.funcs[sec].append((start, start + int(f[2]), name))
            if f[4] == 'LOCAL':
                files[base_name(name)].add(current)
        for sec in self.funcs:
            self.funcs[sec].sort()
        # A static function whose name another file also uses is told
        # apart by its file.
        self.dup = {n for n, fs in files.items() if len(fs) > 1}

    def func_of(self, sec, off):
        """The symbol that holds the offset, or None."""
        funcs = self.funcs.get(sec, [])
        i = bisect.bisect_right(funcs, (off, float('inf'), '')) - 1
        if i >= 0 and funcs[i][0] <= off < funcs[i][1]:
            return funcs[i][2]
        return None

    def _relocations(self):
        """KCOV's points, and the target of every call relocation."""
        self.points = {}        # (section, offset of the call): 'call' or 'jmp'
        self.reloc = {}         # (section, offset): symbol text
        sec = None
        for line in run('readelf', '-rW', self.path).splitlines():
            m = re.match(r"Relocation section '\.rela(\S+)'", line)
            if m:
                sec = m.group(1) if m.group(1) in self.layout else None
                continue
            f = line.split(None, 4)
            if sec is None or len(f) < 5 or not re.match(r'[0-9a-f]+$', f[0]):
                continue
            off = int(f[0], 16)
            sym = f[4].split()[0]
            self.reloc[(sec, off)] = f[4]
            if sym == HOOK:
                op = self.byte(sec, off - 1)
                self.points[(sec, off - 1)] = 'jmp' if op == 0xe9 else 'call'

    def byte(self, sec, off):
        _, foff, size, _ = self.sections[self.byname[sec]]
        return self.data[foff + off] if 0 <= off < size else None

    def _lines(self):
        """The kmod/ line of each point (innermost kmod/ frame), and the
        file of its outermost frame."""
        self.line, self.file, self.inlined = {}, {}, {}
        by_sec = collections.defaultdict(list)
        for sec, off in self.points:
            by_sec[sec].append(off)
        for sec, offs in by_sec.items():
            offs.sort()
            query = ''.join('0x%x\n' % o for o in offs)
            out = run('addr2line', '-e', self.path, '-j', sec, '-a', '-i',
                      '-f', stdin=query)
            chains, names, frames, fnames, fn = [], [], None, None, None
            for text in out.splitlines() + ['0x']:
                if text.startswith('0x'):
                    if frames is not None:
                        chains.append(frames)
                        names.append(fnames)
                    frames, fnames = [], []
                    continue
                if fn is None:
                    fn = text
                    continue
                path, _, num = text.split(' ')[0].rpartition(':')
                if num.isdigit() and '/kmod/' in '/' + path:
                    path = re.sub(r'^(.*/)?kmod/', 'kmod/', os.path.normpath(path))
                    frames.append((path, int(num)))
                    fnames.append((path, fn))
                else:
                    frames.append(None)
                fn = None
            for off, chain, fns in zip(offs, chains, names):
                inner = next((fr for fr in chain if fr), None)
                if inner:
                    self.line[(sec, off)] = inner
                    outer = next((fr for fr in reversed(chain) if fr), inner)
                    self.file[(sec, off)] = outer[0]
                    self.inlined[(sec, off)] = fns[:-1]

    def func_key(self, sec, off):
        """The source function of a point: its name, or file:name."""
        sym = self.func_of(sec, off)
        if sym is None:
            return None
        name = base_name(sym)
        if name in self.dup:
            return '%s:%s' % (self.file.get((sec, off), '?'), name)
        return name

    def inlined_keys(self, sec, off):
        """The source functions of kmod/ inlined at a point (its frames
        but the outermost, which is the symbol's own), as func_key names
        them."""
        return {'%s:%s' % (path, fn) if fn in self.dup else fn
                for path, fn in self.inlined.get((sec, off), ())}

    def measured(self):
        """The points of kmod/'s functions, with their function (a point
        of such a function whose frames name no kmod/ line, as the
        reduced debug info may, counts for the function, not for a line);
        the functions' files."""
        pts, files = {}, {}
        for p in self.points:
            if p in self.line:
                key = self.func_key(*p)
                if key:
                    pts[p] = key
                    files.setdefault(key, self.file[p])
        for p in self.points:
            key = self.func_key(*p)
            if p not in pts and key in files:
                pts[p] = key
        return pts, files

    def bases(self, spec):
        """Each section's address in the guest, and a note on how known."""
        if not os.path.isfile(spec):
            text = int(spec, 16)
            return {s: text + o for s, o in self.layout.items()}, \
                'sections placed after .text by the module loader\'s rule'
        guest = {}
        with open(spec) as f:
            for line in f:
                w = line.split()
                if len(w) == 2:
                    guest[w[0]] = int(w[1], 16)
        text = guest['.text']
        bad = [s for s, o in self.layout.items()
               if s in guest and guest[s] != text + o]
        note = 'the guest\'s section addresses ' + (
            'match the module loader\'s rule' if not bad else
            'differ from the module loader\'s rule for ' + ', '.join(bad))
        return {s: guest.get(s, text + o) for s, o in self.layout.items()}, note

    def tail_target(self, sec, off):
        """For a call at (sec, off): 'weave' and the callee's function, or
        'kernel' and its symbol, or None when it is no direct call."""
        if self.byte(sec, off) != 0xe8:
            return None
        rel = self.reloc.get((sec, off + 1))
        if rel is None:
            disp = int.from_bytes(self.data[self.sections[self.byname[sec]][1] + off + 1:]
                                  [:4], 'little', signed=True)
            tsec, toff = sec, off + CALL_LEN + disp
        else:
            m = re.match(r'(\S+)(?: ([+-]) ([0-9a-f]+))?', rel)
            if not m:
                return None
            sym = m.group(1)
            add = int(m.group(3) or '0', 16) * (-1 if m.group(2) == '-' else 1)
            if sym in self.layout:
                tsec, toff = sym, add + 4
            elif sym in self.symbol_at:
                tsec, toff = self.symbol_at[sym]
            else:
                return ('kernel', sym)
        fn = self.func_of(tsec, toff)
        return ('weave', (tsec, toff, fn)) if fn else None


def indirect_call_before(mod, sec, ret):
    """Whether an indirect call (call *%reg, call *disp8(%reg)) ends at
    ret."""
    def b(o):
        return mod.byte(sec, o)
    if b(ret - 2) == 0xff and 0xd0 <= (b(ret - 1) or 0) <= 0xd7:
        return True
    if b(ret - 3) == 0x41 and b(ret - 2) == 0xff and 0xd0 <= (b(ret - 1) or 0) <= 0xd7:
        return True
    return b(ret - 3) == 0xff and 0x50 <= (b(ret - 2) or 0) <= 0x57 and b(ret - 2) != 0x54


def measure(mod, name, pcs_path, conv, base_spec):
    """Hit points, reached functions and a census of the set's PCs."""
    bases, note = mod.bases(base_spec)
    spans = sorted((a, a + mod.sections[mod.byname[s]][2], s) for s, a in bases.items())
    lo, hi = spans[0][0], spans[-1][1]
    shift = CALL_LEN if conv == 'ret' else 0
    census = collections.Counter()
    hit, tails, where = set(), set(), []
    with open(pcs_path) as f:
        pcs = {int(t, 16) - shift for t in f.read().split()}
    jmps = collections.defaultdict(list)
    for p, kind in mod.points.items():
        if kind == 'jmp':
            jmps[mod.func_of(*p)].append(p)
    for pc in sorted(pcs):
        if not lo <= pc < hi:
            continue
        census['weave.ko'] += 1
        i = bisect.bisect_right(spans, (pc, float('inf'), '')) - 1
        if i < 0 or pc >= spans[i][1]:
            census['between its sections'] += 1
            continue
        p = (spans[i][2], pc - spans[i][0])
        where.append(p)
        if p in mod.points:
            hit.add(p)
            census['at KCOV calls'] += 1
            continue
        # A return address: its callee tail-jumped to the hook, and the
        # function that called it ran.
        t = mod.tail_target(*p)
        if t and t[0] == 'weave':
            census['after a call to a weave function that tail-jumps to KCOV'] += 1
            tsec, toff, fn = t[1]
            tails.add(mod.func_key(tsec, toff))
            if len(jmps[fn]) == 1:
                hit.add(jmps[fn][0])
        elif t:
            census['after a call into the kernel (its coverage, not weave\'s)'] += 1
        elif indirect_call_before(mod, p[0], p[1] + CALL_LEN):
            census['after an indirect call'] += 1
        else:
            census['elsewhere'] += 1
            continue
        tails.add(mod.func_key(*p))
    return hit, tails - {None}, census, note, where


def report(sets, unreached):
    """Prints each set's coverage and, if asked, what none reaches."""
    reached_by, all_funcs, files = {}, set(), {}
    for name, mod, pcs, conv, base in sets:
        pts, fl = mod.measured()
        files.update(fl)
        lines = set(mod.line[p] for p in pts if p in mod.line)
        funcs = set(pts.values())
        all_funcs |= funcs
        njmp = sum(1 for p in pts if mod.points[p] == 'jmp')
        hit, tails, census, note, where = measure(mod, name, pcs, conv, base)
        hit_lines = {mod.line[p] for p in hit if p in pts and p in mod.line}
        hit_funcs = {pts[p] for p in hit if p in pts} | (tails & funcs)
        # A function of its own symbol whose calls were all inlined ran
        # where its code was inlined.
        hit_funcs |= funcs & {k for p in hit for k in mod.inlined_keys(*p)}
        reached_by[name] = (hit_funcs, funcs, mod, where)
        print('%s: weave.ko %s' % (name, mod.path))
        print('%s: %d KCOV points in kmod/ (%d of them tail jumps), on %d lines '
              'of %d functions; %s' % (name, len(pts), njmp, len(lines),
                                       len(funcs), note))
        print('%s: lines %d of %d (%.1f%%), functions %d of %d (%.1f%%)'
              % (name, len(hit_lines), len(lines),
                 100.0 * len(hit_lines) / max(len(lines), 1),
                 len(hit_funcs), len(funcs),
                 100.0 * len(hit_funcs) / max(len(funcs), 1)))
        total = census.pop('weave.ko', 0)
        print('%s: %d PCs in weave.ko: %s' % (
            name, total,
            ', '.join('%d %s' % (n, k) for k, n in census.most_common()) or 'none'))
        if census['at KCOV calls'] < 0.9 * total:
            print('%s: WARNING: so few of its PCs are at KCOV calls that this is '
                  'not the weave.ko, the PC convention or the base they came with'
                  % name)
    if not unreached:
        return 0
    for name, (hit_funcs, funcs, _, _) in reached_by.items():
        if len(reached_by) == 1:
            break
        others = set().union(*(h for n, (h, _, _, _) in reached_by.items() if n != name))
        print('%s: %d functions not reached, %d reached by it alone'
              % (name, len(funcs - hit_funcs), len(hit_funcs - others)))
    none = all_funcs - set().union(*(h for h, _, _, _ in reached_by.values()))
    print('functions none of them reaches (%d):' % len(none))
    for fn in sorted(none, key=lambda k: (files.get(k, ''), k)):
        print('  ' + (fn if ':' in fn else '%s: %s' % (files.get(fn, '?'), fn)))
    # Each of them holds no PC of any set.
    bad = 0
    for name, (_, _, mod, where) in reached_by.items():
        for p in where:
            key = mod.func_key(*p)
            if key in none:
                print('check: %s has a PC in %s (%s+0x%x)' % (name, key, *p))
                bad += 1
    print('check: the sets hold %s PC in a function said unreached'
          % ('a' if bad else 'no'))
    return 1 if bad else 0


SELF_TEST_C = r'''
extern void ext(int);
extern void cold_ext(int) __attribute__((cold));
int g;
__attribute__((noinline)) static void unreached_fn(int x)
{
	if (x > 3)
		ext(x);
	else
		ext(-x);
}
__attribute__((noinline)) void reached_fn(int x)
{
	if (x)
		ext(1);
	else
		ext(2);
}
void split_fn(int x)
{
	if (x == 42) {
		cold_ext(3);
		cold_ext(4);
	}
	ext(5);
}
void tail_fn(int x)
{
	if (x)
		g = 1;
}
void caller(int x)
{
	tail_fn(x);
	ext(6);
	unreached_fn(x);
}
void inl_fn(int x);
__attribute__((always_inline)) inline void inl_fn(int x)
{
	if (x > 7)
		ext(7);
	else
		ext(8);
}
void inl_caller(int x)
{
	inl_fn(x);
	ext(9);
}
'''


def self_test():
    """Builds a tiny instrumented object in kmod/ and measures planted
    PCs with it; returns 0 when every check holds."""
    fails = []

    def check(what, ok):
        print('%s %s' % ('ok' if ok else 'FAILED', what))
        if not ok:
            fails.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, 'kmod'))
        src = os.path.join(tmp, 'kmod', 't.c')
        obj = os.path.join(tmp, 't.o')
        with open(src, 'w') as f:
            f.write(SELF_TEST_C)
        run('gcc', '-O2', '-g', '-fno-pic', '-fno-inline', '-mcmodel=kernel',
            '-fsanitize-coverage=trace-pc', '-fno-asynchronous-unwind-tables',
            '-c', src, '-o', obj)
        mod = Module(obj)
        pts, _ = mod.measured()
        check('a cold part is in .text.unlikely, named for its function',
              any(s == '.text.unlikely' and k == 'split_fn' for (s, _), k in pts.items()))
        check('a tail jump to the hook is a point',
              any(mod.points[p] == 'jmp' and pts.get(p) == 'tail_fn' for p in pts))
        text = 0xffffffffa0000000
        bases, _ = mod.bases('%x' % text)
        reached = [p for p, k in pts.items() if k == 'reached_fn']
        cold = [p for p, k in pts.items() if k == 'split_fn' and p[0] == '.text.unlikely']
        ret_after_tail = None
        for (sec, off) in mod.reloc:
            t = mod.tail_target(sec, off - 1)
            if t and t[0] == 'weave' and t[1][2] == 'tail_fn':
                ret_after_tail = bases[sec] + off - 1
        check('the call of tail_fn from caller is found', ret_after_tail is not None)
        plant = [bases[s] + o for s, o in reached + cold[:1]]
        plant.append(ret_after_tail or 0)
        sections = os.path.join(tmp, 'sections')
        with open(sections, 'w') as f:
            for s, a in bases.items():
                f.write('%s 0x%x\n' % (s, a))
        outs = {}
        for conv, shift, base in (('call', 0, '%x' % text), ('ret', CALL_LEN, sections),
                                  ('wrong', CALL_LEN, '%x' % text)):
            pcs = os.path.join(tmp, conv)
            with open(pcs, 'w') as f:
                f.write(''.join('0x%x\n' % (pc + shift) for pc in plant))
                f.write('0xffffffff81000000\n')
            hit, tails, census, note, _ = measure(
                mod, conv, pcs, 'call' if conv == 'wrong' else conv, base)
            outs[conv] = ({pts[p] for p in hit if p in pts} | tails, census, note)
        # caller ran: the return address of its call of tail_fn is in it.
        want = {'reached_fn', 'split_fn', 'tail_fn', 'caller'}
        check('call addresses reach %s' % sorted(want), outs['call'][0] == want)
        check('return addresses with the guest\'s sections reach the same',
              outs['ret'][0] == want and 'match' in outs['ret'][2])
        check('return addresses taken for call addresses miss the points',
              outs['wrong'][1]['at KCOV calls'] == 0)
        check('a PC outside the module is not counted',
              outs['call'][1]['weave.ko'] == len(plant))
        # inl_fn's out-of-line copy is never called; its code inlined
        # in inl_caller runs.
        inl = [p for p, k in pts.items()
               if k == 'inl_caller' and 'inl_fn' in mod.inlined_keys(*p)]
        check('inl_fn has points inlined in inl_caller', bool(inl))
        pcs = os.path.join(tmp, 'inl')
        with open(pcs, 'w') as f:
            f.write(''.join('0x%x\n' % (bases[s] + o) for s, o in inl))
        hit = measure(mod, 'inl', pcs, 'call', '%x' % text)[0]
        check('a hit in inlined code reaches inl_fn, and no other PC does',
              {k for p in hit for k in mod.inlined_keys(*p)} == {'inl_fn'} and
              not any('inl_fn' in mod.inlined_keys(*p) for p in
                      measure(mod, 'call', os.path.join(tmp, 'call'), 'call',
                              '%x' % text)[0]))
    print('%d failed' % len(fails))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split('Usage: ')[1])
    ap.add_argument('--set', nargs=5, action='append', default=[],
                    metavar=('NAME', 'KO', 'PCS', 'CONV', 'BASE'))
    ap.add_argument('--unreached', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.set:
        ap.error('no --set')
    mods, sets = {}, []
    for name, ko, pcs, conv, base in a.set:
        if conv not in ('call', 'ret'):
            ap.error('CONV is call or ret, not ' + conv)
        key = os.path.realpath(ko)
        mods.setdefault(key, Module(ko))
        sets.append((name, mods[key], pcs, conv, base))
    return report(sets, a.unreached)


if __name__ == '__main__':
    sys.exit(main())
