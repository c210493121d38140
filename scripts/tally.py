#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Totals TAP files into one closing line: "N passed, N failed".

Nested TAP (kselftest's runner prefixes a suite's own TAP with "# ") is
walked as a tree: every leaf result counts once; a parent counts only if it
failed and none of its children did (a suite that crashed or timed out).
A skipped test counts as failed: nothing is skipped to get green.  A plan
("1..N") that is not met counts the missing results as failed, and a file
with no result at all counts as one failure.
"""
import re
import sys

RESULT = re.compile(r'^(not ok|ok)\b(.*)$')
PLAN = re.compile(r'^1\.\.(\d+)')


def tally(lines):
    passed = failed = 0
    # Per depth: results seen since the plan, the plan, and failures below.
    seen, plan, child_fail, child_any = {}, {}, {}, {}
    for raw in lines:
        line, depth = raw.rstrip('\n'), 0
        while line.startswith('# '):
            line, depth = line[2:], depth + 1
        m = PLAN.match(line)
        if m:
            # A new TAP stream at this depth: settle the previous one.
            if seen.get(depth, 0) < plan.get(depth, 0):
                failed += plan[depth] - seen[depth]
            plan[depth], seen[depth] = int(m.group(1)), 0
            continue
        m = RESULT.match(line)
        if not m:
            continue
        ok = m.group(1) == 'ok' and '# SKIP' not in m.group(2)
        seen[depth] = seen.get(depth, 0) + 1
        below = depth + 1
        if child_any.get(below):
            missing = plan.get(below, 0) - seen.get(below, 0)
            if missing > 0:
                failed += missing
            elif not ok and not child_fail.get(below):
                failed += 1
            child_fail[depth] = child_fail.get(depth) or not ok
        else:
            passed, failed = passed + ok, failed + (not ok)
            child_fail[depth] = child_fail.get(depth) or not ok
        child_any[depth] = True
        child_any[below] = child_fail[below] = False
        plan.pop(below, None)
        seen.pop(below, None)
    for depth, want in plan.items():
        if seen.get(depth, 0) < want:
            failed += want - seen.get(depth, 0)
    if not passed and not failed:
        failed = 1  # no plan and no result: the producer died first
    return passed, failed


def main():
    passed = failed = 0
    for name in sys.argv[1:]:
        with open(name, errors='replace') as f:
            p, fl = tally(f)
        print(f'{name}: {p} passed, {fl} failed')
        passed, failed = passed + p, failed + fl
    print(f'{passed} passed, {failed} failed')
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
