#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Decides whether a syzkaller campaign of make syz fuzzed for the time
asked, from what scripts/syz-run.sh left in its folder, so that a
campaign that never ran cannot read as a clean one.

It fails, with one line saying why, when:

- syz-manager's log (OUT/manager.log) holds a fatal error ("[FATAL]",
  as syzkaller's pkg/log writes it, or a Go panic): the manager stopped.
  Only the log's first bytes count when OUT/stopped-at gives their
  number: what the manager wrote once its time was up and it was told
  to stop is no failure;
- the log has no "machine check:" line: no guest ever reached it;
- the fuzzing lasted (OUT/seconds, counted from the machine check) less
  than the HOURS asked: the manager stopped early;
- no metrics were fetched from the manager at the end (OUT/cover/
  metrics): it was no longer running;
- its executions (syz_exec_total at the end, less the count at the
  machine check, OUT/cover/metrics.start, when that was saved) are none;
- no coverage of weave.ko was fetched: the raw PCs (OUT/cover/rawcover)
  hold none inside weave.ko's .text in the guest, which syz-manager's
  /modules (OUT/cover/modules) gives as its address in the guest and
  the size of .text in the weave.ko it symbolises (syzkaller 475a4c203
  lists only the modules it found a file of).

Otherwise it prints the time, the executions and weave.ko's PCs.

--self-test runs the decision on tests/syz/good (a campaign's folder,
cut down), on tests/syz/fatal.log (the log of a manager stopped at once
by "bad syz-manager build") and on copies of the good folder with a
flaw planted in each: each flawed one must fail and say why.

Usage: scripts/syz-fuzzed.py OUT_DIR HOURS
       scripts/syz-fuzzed.py --self-test
"""
import json
import os
import re
import shutil
import sys
import tempfile

FATAL = re.compile(r'\[FATAL\]|^panic: |^fatal error: ')
MACHINE_CHECK = re.compile(r'^[0-9/]+ [0-9:]+ machine check:')
# When /modules gives no size: more than weave.ko's code.
DEFAULT_SIZE = 1 << 24


class NotFuzzed(Exception):
    """The campaign did not fuzz as asked; the message says why."""


def read(path):
    """A file's text, or None when it is not there."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def metric(text, name):
    """The value of a Prometheus metric in text, or None."""
    for line in (text or '').splitlines():
        w = line.split()
        if len(w) == 2 and w[0] == name:
            try:
                return int(float(w[1]))
            except ValueError:
                return None
    return None


def weave_pcs(out):
    """The raw PCs fetched that fall in weave.ko's code."""
    cover = os.path.join(out, 'cover')
    mods = read(os.path.join(cover, 'modules'))
    raw = read(os.path.join(cover, 'rawcover'))
    if not mods or not raw:
        raise NotFuzzed('no coverage was fetched from syz-manager '
                        '(cover/rawcover or cover/modules is missing)')
    try:
        weave = next(m for m in json.loads(mods) if m.get('Name') == 'weave')
    except (ValueError, StopIteration, AttributeError, TypeError):
        raise NotFuzzed('syz-manager saw no module weave in the guest '
                        '(cover/modules): weave.ko was not loaded') from None
    lo = int(weave['Addr'])
    hi = lo + (int(weave.get('Size') or 0) or DEFAULT_SIZE)
    pcs = []
    for t in raw.split():
        try:
            pcs.append(int(t, 16))
        except ValueError:
            pass
    n = sum(1 for pc in pcs if lo <= pc < hi)
    if n == 0:
        raise NotFuzzed(f'no coverage of weave.ko was fetched: none of the '
                        f'{len(pcs)} raw PCs lies in its code '
                        f'({lo:#x} to {hi:#x})')
    return n


def decide(out, hours):
    """Returns the summary of a campaign that fuzzed; raises NotFuzzed."""
    log = read(os.path.join(out, 'manager.log'))
    if log is None:
        raise NotFuzzed('syz-manager left no log (manager.log)')
    try:
        log = log[:int(read(os.path.join(out, 'stopped-at')))]
    except (TypeError, ValueError):
        pass
    lines = log.splitlines()
    fatal = next((ln for ln in lines if FATAL.search(ln)), None)
    if fatal:
        raise NotFuzzed(f'syz-manager stopped: {fatal.strip()}')
    if not any(MACHINE_CHECK.match(ln) for ln in lines):
        raise NotFuzzed('syz-manager never got to its machine check: no '
                        'guest booted and reached it')
    asked = int(float(hours) * 3600)
    secs = read(os.path.join(out, 'seconds'))
    try:
        secs = int(secs)
    except (TypeError, ValueError):
        raise NotFuzzed('the campaign measured no fuzzing time '
                        '(seconds)') from None
    if secs < asked:
        raise NotFuzzed(f'syz-manager stopped after {secs // 60} min of '
                        f'fuzzing, of the {asked // 60} min asked')
    cover = os.path.join(out, 'cover')
    end = metric(read(os.path.join(cover, 'metrics')), 'syz_exec_total')
    if end is None:
        raise NotFuzzed('no metrics were fetched from syz-manager at the '
                        'end (cover/metrics): it was not running')
    start = metric(read(os.path.join(cover, 'metrics.start')),
                   'syz_exec_total') or 0
    if end - start <= 0:
        raise NotFuzzed(f'syz-manager made no executions while fuzzing '
                        f'({start} at the machine check, {end} at the end)')
    pcs = weave_pcs(out)
    return (f'fuzzed {secs // 60} min ({asked // 60} asked): '
            f'{end - start} executions, {pcs} PCs of weave.ko')


def self_test(root):
    """Each case's folder and the words its failure must hold (None: it
    must pass).  Returns a list of failures."""
    good = os.path.join(root, 'tests', 'syz', 'good')
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        def case(name, plant):
            d = os.path.join(tmp, name)
            shutil.copytree(good, d)
            plant(d)
            return d

        def write(d, rel, text):
            with open(os.path.join(d, rel), 'w', encoding='utf-8') as f:
                f.write(text)

        def fatal(d):
            shutil.copy(os.path.join(root, 'tests', 'syz', 'fatal.log'),
                        os.path.join(d, 'manager.log'))
            shutil.rmtree(os.path.join(d, 'cover'))
            write(d, 'seconds', '0\n')

        def late_fatal(d):
            with open(os.path.join(d, 'manager.log'), 'a',
                      encoding='utf-8') as f:
                f.write('2025/01/23 11:02:07 [FATAL] failed to create '
                        'instance: qemu stopped\n')

        def fatal_after_stop(d):
            size = os.path.getsize(os.path.join(d, 'manager.log'))
            write(d, 'stopped-at', f'{size}\n')
            late_fatal(d)

        def unchecked(d):
            log = read(os.path.join(d, 'manager.log'))
            write(d, 'manager.log', ''.join(
                ln + '\n' for ln in log.splitlines()
                if not MACHINE_CHECK.match(ln)))

        def no_execs(d):
            shutil.copy(os.path.join(d, 'cover', 'metrics'),
                        os.path.join(d, 'cover', 'metrics.start'))

        def zero_execs(d):
            os.remove(os.path.join(d, 'cover', 'metrics.start'))
            text = read(os.path.join(d, 'cover', 'metrics'))
            write(d, 'cover/metrics',
                  re.sub(r'^syz_exec_total .*$', 'syz_exec_total 0', text,
                         flags=re.M))

        def kernel_only(d):
            write(d, 'cover/rawcover', 'ffffffff81000100\nffffffff81a0f3c4\n')

        cases = [
            ('good', lambda d: None, None),
            ('fatal', fatal, '[FATAL] bad syz-manager build'),
            ('late-fatal', late_fatal, 'syz-manager stopped: '),
            ('fatal-after-stop', fatal_after_stop, None),
            ('unchecked', unchecked, 'never got to its machine check'),
            ('short', lambda d: write(d, 'seconds', '600\n'),
             'stopped after 10 min of fuzzing, of the 30 min asked'),
            ('no-metrics', lambda d: os.remove(
                os.path.join(d, 'cover', 'metrics')), 'no metrics'),
            ('no-execs', no_execs, 'made no executions'),
            ('zero-execs', zero_execs, 'made no executions'),
            ('kernel-only', kernel_only, 'no coverage of weave.ko'),
            ('no-rawcover', lambda d: os.remove(
                os.path.join(d, 'cover', 'rawcover')), 'no coverage'),
            ('no-weave', lambda d: write(
                d, 'cover/modules', '[{"Name": "", "Addr": 1, "Size": 1}]'),
             'no module weave'),
        ]
        for name, plant, says in cases:
            d = case(name, plant)
            try:
                got = decide(d, '0.5')
                err = None
            except NotFuzzed as e:
                got, err = None, str(e)
            if says is None and err is None:
                print(f'ok: {name}: passes: {got}')
            elif says is not None and err is not None and says in err:
                print(f'ok: {name}: fails: {err}')
            else:
                failures.append(f'{name}: wanted '
                                f'{"a pass" if says is None else repr(says)}'
                                f', got {got or err!r}')
    return failures


def main():
    if sys.argv[1:] == ['--self-test']:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
        failures = self_test(root)
        for f in failures:
            print(f'FAILED: {f}')
        return 1 if failures else 0
    if len(sys.argv) != 3:
        print(__doc__.split('Usage: ')[1], file=sys.stderr)
        return 1
    out, hours = sys.argv[1:]
    try:
        print(f'syz: {decide(out, hours)}')
    except NotFuzzed as e:
        print(f'make syz: the campaign did not fuzz as asked: {e} '
              f'(see {os.path.join(out, "manager.log")})', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
