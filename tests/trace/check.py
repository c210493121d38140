#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The tests of tools/weave-trace, as TAP: its JSON and SVG from traces.

pipeline.trace, written by hand, holds every weave event of the trace
contract (Documentation/weave.rst, Tracepoints) with a job cut by the
trace's start, one cut by its end, a failure, skips, a timeout, two
cross-stream dependencies, gpu_scheduler and dma_fence events and lines
the tool does not know.  vm-pipeline-6.1.trace is a real trace of
examples/weave-pipeline in the VM (`make demo`), with only the job and
enqueue events of weave, and gpu_scheduler's and dma_fence's;
vm-pipeline-events-6.1.trace one with the events that branch wip-trace2
adds.  Traces of a few lines are written here.

Usage: tests/trace/check.py   (from the top of the weave tree)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TOOL = 'tools/weave-trace'
HERE = os.path.dirname(os.path.abspath(__file__))
SVG = '{http://www.w3.org/2000/svg}'
results = []


def point(ok, what, diag=''):
    results.append((bool(ok), what, diag))


def run(trace, *args, stdin=None):
    """Runs the tool on @trace; (status, stderr, json or None, svg root or
    None)."""
    with tempfile.TemporaryDirectory() as d:
        j, s = os.path.join(d, 'out.json'), os.path.join(d, 'out.svg')
        p = subprocess.run([sys.executable, TOOL, trace, '--json', j,
                            '--svg', s, *args], input=stdin,
                           capture_output=True, text=True)
        data = svg = None
        if p.returncode == 0:
            with open(j, encoding='utf-8') as f:
                data = json.load(f)
            svg = ET.parse(s).getroot()
        return p.returncode, p.stderr, data, svg


def lanes(data):
    """{tid: (process name, thread name)} from the metadata events."""
    procs = {e['pid']: e['args']['name'] for e in data['traceEvents']
             if e['ph'] == 'M' and e['name'] == 'process_name'}
    return {e['tid']: (procs[e['pid']], e['args']['name'])
            for e in data['traceEvents']
            if e['ph'] == 'M' and e['name'] == 'thread_name'}


def events(data, ph, name=None):
    """The events of phase @ph (named @name), with their lane's names."""
    lane = lanes(data)
    return [dict(e, lane=lane.get(e.get('tid'))) for e in data['traceEvents']
            if e['ph'] == ph and (name is None or e['name'] == name)]


def count(svg, cls):
    """How many elements of the SVG have every class in @cls."""
    want = set(cls.split())
    return sum(1 for e in svg.iter()
               if want <= set(e.get('class', '').split()))


def check_contract():
    st, err, data, svg = run(os.path.join(HERE, 'pipeline.trace'))
    point(st == 0, 'the hand-written trace is read', err)
    if st:
        return
    names = set(lanes(data).values())
    want = {('client 5', 'stream 1'), ('client 5', 'stream 2'),
            ('client 5', 'stream 3'), ('client 5', 'slot 1'),
            ('client 5', 'slot 3'), ('hardware queues', 'queue 0'),
            ('hardware queues', 'queue 1'), ('gpu_scheduler', 'ring weave-q0')}
    point(want <= names, 'lanes are named for streams, slots, queues and '
          'rings', f'lanes: {sorted(names)}')
    x = {(e['name'], e['lane'][1]): (e['ts'], e['dur'])
         for e in events(data, 'X')}
    point(x.get(('job 40:2', 'queue 0')) == (1000.0, 1600.0) and
          x.get(('job 40:2', 'stream 1')) == (400.0, 2200.0),
          'a job is an X event from run to done on its queue, from push to '
          'done on its stream', str(x))
    point(x.get(('task 0', 'queue 0')) == (1000.0, 500.0) and
          x.get(('task 1', 'queue 0')) == (1500.0, 1000.0),
          'its tasks are X events from the previous end to their own', str(x))
    bad = {e['name']: e.get('cname') for e in events(data, 'X')}
    point(bad.get('job 41:1 error -5') == 'terrible' and
          bad.get('job 43:1 error -62') == 'terrible' and
          bad.get('job 40:2') is None,
          'jobs with an error are named so and coloured "terrible"', str(bad))
    inst = [(e['name'], e['lane'][1]) for e in events(data, 'i')]
    point(('failure record 7', 'queue 1') in inst and
          inst.count(('skip from record 7', 'queue 0')) == 2 and
          ('timeout', 'queue 1') in inst and
          ('enqueue 2', 'slot 1') in inst and
          ('exec interleave 1 job(s)', 'stream 1') in inst and
          ('capture begin graph 2', 'stream 1') in inst and
          ('capture end graph 2', 'stream 1') in inst and
          ('replay graph 2', 'stream 2') in inst,
          'failures, skips, timeouts, enqueues, executions, captures and '
          'replays are instant events on their lanes', str(inst))
    flows = {}
    for e in events(data, 's') + events(data, 'f'):
        flows.setdefault(e['id'], {})[e['ph']] = (e['lane'][1], e['ts'])
    point(sorted(flows.values(), key=str) ==
          [{'s': ('queue 0', 1000.0), 'f': ('queue 1', 3000.0)},
           {'s': ('queue 1', 3000.0), 'f': ('queue 0', 4000.0)}],
          'each dependency is a flow from its job to the waiting job',
          str(flows))
    args = {e['name']: e['args'] for e in events(data, 'X')
            if e['lane'][0] == 'hardware queues'}
    point('note' in args.get('job 40:1', {}) and
          'unfinished' in args.get('job 44:1', {}) and
          x.get(('job 44:1', 'queue 0')) == (6700.0, 500.0) and
          data['otherData']['unknown_events'] == 2,
          'a job cut by either end of the trace is drawn and said to be; '
          'unknown events are counted', str(args))
    point(svg.tag == SVG + 'svg' and count(svg, 'bar job') == 12 and
          count(svg, 'bar task') == 3 and
          count(svg, 'bar gpu_scheduler') == 1,
          'the SVG is well-formed with 12 job bars, 3 task bars, 1 '
          'scheduler bar',
          f"{count(svg, 'bar job')} {count(svg, 'bar task')}")
    point(count(svg, 'arrow') == 2 and count(svg, 'mark failure') == 1 and
          count(svg, 'mark skip') == 2 and count(svg, 'mark timeout') == 1,
          'the SVG has 2 arrows, a failure, 2 skips and a timeout marked')
    texts = [e.text for e in svg.iter(SVG + 'text')]
    point('queue 1' in texts and 'stream 3' in texts and '1 ms' in texts and
          'failure' in texts and 'enqueue' in texts,
          'the SVG labels its lanes, its time axis in ms, and has a legend',
          str(texts))


def check_vm_trace():
    path = os.path.join(HERE, 'vm-pipeline-6.1.trace')
    st, err, data, svg = run(path)
    point(st == 0, 'the VM trace of weave-pipeline is read', err)
    if st:
        return
    x = events(data, 'X')
    jobs = [e for e in x if e['lane'][0] == 'hardware queues']
    point(len(jobs) == 9 and all(e['dur'] > 0 for e in jobs),
          'its 9 jobs are on the queue lanes, each with a duration',
          str(jobs))
    point(any(e['lane'][1] == 'jobs (no stream in trace)' for e in x),
          'without a stream in the job events, they are drawn on one lane '
          'of their client')
    ids = [e['id'] for e in events(data, 's')]
    point(len(ids) >= 3 and sorted(ids) == sorted(
        e['id'] for e in events(data, 'f')),
          'gpu_scheduler\'s waits on weave\'s fences become paired flows',
          str(ids))
    point(count(svg, 'bar job') == 18 and count(svg, 'arrow') == len(ids),
          'its SVG has a bar per job on queue and client lanes and an arrow '
          'per flow')


def check_events_trace():
    path = os.path.join(HERE, 'vm-pipeline-events-6.1.trace')
    st, err, data, svg = run(path)
    point(st == 0, 'the VM trace with the new events is read', err)
    if st:
        return
    x = events(data, 'X')
    jobs = {e['name']: e for e in x
            if e['lane'][0] == 'hardware queues' and e['cat'] == 'job'}
    tasks = [e for e in x if e['cat'] == 'task']
    inside = all(jobs[t['args']['job']]['ts'] <= t['ts'] and
                 t['ts'] + t['dur'] <= jobs[t['args']['job']]['ts'] +
                 jobs[t['args']['job']]['dur'] + 0.001 for t in tasks)
    point(len(jobs) == 9 and len(tasks) == 20 and inside,
          'its 20 weave_task events are bars inside their 9 jobs',
          f'{len(jobs)} jobs, {len(tasks)} tasks')
    lanes_ = {e['lane'][1] for e in x if e['lane'][0] == 'client 4'}
    point({'stream 1', 'stream 2', 'stream 3',
           'jobs of no one stream'} <= lanes_,
          'jobs are on the lanes of the streams the job events name',
          str(lanes_))
    with open(path, encoding='utf-8') as f:
        deps = set(re.findall(r'weave_job_dep: client=\d+ context=(\d+) '
                              r'seqno=(\d+) dep_context=(\d+) '
                              r'dep_seqno=(\d+)', f.read()))
    at = {(e['tid'], e['ts']): e['name'] for e in jobs.values()}
    ends = {}
    for e in events(data, 's') + events(data, 'f'):
        ends.setdefault(e['id'], {})[e['ph']] = at.get((e['tid'], e['ts']))
    flows = {(f['f'], f['s']) for f in ends.values()}
    want = {(f'job {c}:{s}', f'job {dc}:{ds}') for c, s, dc, ds in deps}
    point(deps and want <= flows,
          'every weave_job_dep is a flow from its dependency to its job',
          f'missing {sorted(want - flows)}')
    point(len([e for e in events(data, 'i') if e['cat'] == 'exec']) == 12 and
          count(svg, 'bar task') == 20,
          'its 12 executions are marked, its tasks drawn in the SVG')


def check_old_and_bad():
    old = ('  p-1 [000] .....     1.000000: weave_job_push: client=1 queue=0 '
           'context=3 seqno=1 tasks=1 error=0\n'
           '  p-1 [000] .....     1.000100: weave_job_run: client=1 queue=0 '
           'context=3 seqno=1 tasks=1 error=0\n')
    st, err, data, _ = run('-', stdin=old)
    point(st == 0 and [(e['ts'], e['dur']) for e in events(data, 'X')
                       if e['lane'][1] == 'queue 0'] == [(100.0, 0.0)],
          'a trace read from standard input, of a job still running at its '
          'end', err)
    for what, text in (('an empty input', ''),
                       ('text that is no trace', 'hello\nworld\n')):
        st, err, _, _ = run('-', stdin=text)
        point(st == 2 and 'weave-trace: ' in err,
              f'{what} fails with status 2 and a message', err)
    st, err, _, _ = run(os.path.join(HERE, 'no-such-trace'))
    point(st == 2 and 'no-such-trace' in err,
          'a missing file fails with status 2, naming it', err)
    p = subprocess.run([sys.executable, TOOL, '--help'],
                       capture_output=True, text=True)
    point(p.returncode == 0 and p.stdout.startswith('usage: weave-trace'),
          '--help prints the usage')


def main():
    check_contract()
    check_vm_trace()
    check_events_trace()
    check_old_and_bad()
    print(f'1..{len(results)}')
    for n, (ok, what, diag) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} weave-trace: {what}")
        if not ok and diag:
            print('\n'.join('# ' + d for d in diag[:2000].splitlines()))
    return 0 if all(r[0] for r in results) else 1


if __name__ == '__main__':
    sys.exit(main())
