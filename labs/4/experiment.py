#!/usr/bin/env python3
"""labs/4/experiment.py: lab 4's experiment, the overflow table.

For stages 1, 2 and 3 and two descents (the same 25-frame call chain at
every stage; a descent to about 300 bytes from the end), boot the stage
with labs/4/guest.sh, watch the end magic from gdb (labs/4/watch.py),
and record from the kernel's own output what caught the overflow, or
not. Writes build/results/lab4-overflow.tsv (the rows, by column name,
for book/plots.py and check 86), .txt (for a terminal), .adoc (the
workbook's table) and .log (the lines each row was read from).

In the rows, an empty cell is something this run did not see: no
stackdeep report (the kernel died first), no watch record (gdb failed).
"""
import json
import os
import platform
import re
import time

HERE = os.path.dirname(os.path.abspath(__file__))

from vm.session import facts
from vm.session import results
from vm.session.session import BUILD, DONE_MARKER, Guest, GuestError

DESCENTS = (('frames', 25), ('room', 300))
STAGES = facts.lab(4)['experiment_stages']
COLUMNS = ('stage', 'descent', 'thread_size', 'frames', 'bytes_left',
           'device_interrupts', 'checks_fired', 'check_stack', 'end_magic',
           'overwritten_by', 'via', 'bytes_below_changed',
           'bytes_below_checked', 'panic', 'dd_returned')
# The console lines the log keeps for each run.
# What guest.sh's writer prints, ten times, while dd is deep.
WRITER = 'lab 4: serial traffic from CPU 1'
LOGGED = re.compile(r'stackdeep|low stack|Kernel panic|lab 4|' + DONE_MARKER)


def first(pattern, text):
    """The first match of PATTERN in TEXT, or None."""
    return re.search(pattern, text, re.M)


def kernel_lines(serial):
    """SERIAL without the writer's lines (guest.sh's traffic on CPU 1),
    which are noise between the kernel's. The writer's text goes out 16
    bytes an interrupt, and the kernel's console writes a whole line
    between two of them: a kernel line can follow a piece of the
    writer's, so only the writer's text is cut, from the kernel line's
    printk time on."""
    out = []
    for line in serial.split('\n'):
        line = line.replace(WRITER, '')
        kernel = re.search(r'\[ *\d+\.\d+\] ', line)
        if kernel:
            line = line[kernel.start():]
        elif line.strip() and line.strip() in WRITER:
            continue
        out.append(line)
    return '\n'.join(out)


def observe(serial):
    """What the kernel's console says about one descent (stackdeep's
    report, the IRQ-entry check's reports, a panic), as table cells."""
    row = dict(frames='', bytes_left='', device_interrupts='', end_magic='',
               bytes_below_changed='', bytes_below_checked='')
    m = first(r"stackdeep: (\d+) frames .*, (\d+) bytes (PAST|left above) "
              r"the stack's end", serial)
    if m:
        # The deepest esp's distance above the stack's end; below it, < 0.
        row.update(frames=int(m[1]),
                   bytes_left=-int(m[2]) if m[3] == 'PAST' else int(m[2]))
    m = first(r'stackdeep: end magic (\w+); (\d+) of the (\d+) bytes below '
              r'the stack changed', serial)
    if m:
        row.update(end_magic=m[1], bytes_below_changed=int(m[2]),
                   bytes_below_checked=int(m[3]))
    m = first(r'stackdeep: (\d+) device interrupts', serial)
    if m:
        row['device_interrupts'] = int(m[1])
    lines = serial.split('\n')
    reports = [i for i, l in enumerate(lines)
               if 'low stack detected by irq handler' in l]
    row['checks_fired'] = len(reports)
    # Where the check's report ran: dump_stack() marks the part of the
    # trace on an IRQ stack <IRQ>, within the report's first lines.
    row['check_stack'] = '' if not reports else (
        'irq' if any('<IRQ>' in l for i in reports for l in lines[i:i + 5])
        else 'task')
    m = first(r'Kernel panic - not syncing: (.*)$', serial)
    row['panic'] = m[1].strip() if m else ''
    row['dd_returned'] = ('yes' if 'lab 4: the descent returned' in serial
                          else 'no')
    return row


def experiment(k, mode, n, log, tries=2):
    """One descent at stage K: its row. A run that tells nothing is made
    once more on a fresh guest, as make grade does for a lab whose guest
    may die: gdb lost its guest before the watchpoint could say anything,
    or hung after it (a descent past the end can take the CPU down with a
    triple fault, or leave gdb stuck in an interrupt), or the guest ended
    while the watchpoint was set, with no report from stackdeep: it died
    without telling who wrote the magic, if anyone did. (What lies under
    a stack is chance, and so is how a descent through it ends: a CI run
    saw this once; 136 runs made here to see it again did not.) A
    watchpoint that stays silent while the guest lives on is an answer,
    and is not run again."""
    append = 'ks_mode=%s ks_n=%d' % (mode, n)
    with Guest(k, '/labs/4/guest.sh', halted=True, append=append) as guest:
        run = guest.gdb(['-x', os.path.join(HERE, 'watch.py')])
        try:
            status = guest.wait_exit(60)
        except GuestError as e:
            status = str(e)
        serial = kernel_lines(guest.serial())
    watch = next((r for r in run.records if r['kind'] == 'watch'), {})
    log.write('=== stage %d, %s %d (run folder %s; gdb exit %s; guest exit %s)\n'
              % (k, mode, n, guest.run, run.rc, status))
    log.writelines(json.dumps(r, sort_keys=True) + '\n' for r in run.records)
    log.writelines(l + '\n' for l in serial.split('\n') if LOGGED.search(l))
    log.flush()
    seen = observe(serial)
    if not watch:
        why = 'no watch record'
    elif run.rc == 124:
        why = 'gdb timed out'
    elif (watch['overwritten_by'] == 'nobody' and seen['frames'] == '' and
          watch.get('stopped') == 'the guest ended'):
        why = 'the guest ended with the watchpoint silent, and stackdeep did not report'
    else:
        why = None
    if why and tries > 1:
        log.write('=== (no answer: %s; one more guest)\n' % why)
        return experiment(k, mode, n, log, tries - 1)
    row = dict(stage=k, descent='%s %d' % (mode, n),
               thread_size=facts.stage(k)['thread_size'],
               overwritten_by=watch.get('overwritten_by', ''),
               via=watch.get('via', ''))
    row.update(seen)
    return guest, row


def show(value):
    return '?' if value == '' else value


def deepest(r):
    if r['frames'] == '':
        return 'no report'
    return '%s frames, %s' % (r['frames'], (
        '%d left above end' % r['bytes_left'] if r['bytes_left'] >= 0
        else '%d PAST end' % -r['bytes_left']))


def overwriter(r):
    """Who overwrote the end magic (and in which interrupt), or ''."""
    if r['overwritten_by'] in ('', 'nobody'):
        return ''
    if r['via'] in ('', 'none'):
        return r['overwritten_by']
    return '%s (in %s)' % (r['overwritten_by'], r['via'])


def outcome(r):
    return ('panic: ' + r['panic'] if r['panic'] else
            'survived' if r['dd_returned'] == 'yes' else
            'dd never returned, no panic message')


def text(rows, setup):
    out = ['Lab 4: overflow at each stage (%s, %s host, %s)' % (
        time.strftime('%F', time.gmtime()), platform.machine(), setup)]
    for r in rows:
        out.append('stage %s, %s: deepest %s; %s device interrupts there' % (
            r['stage'], r['descent'], deepest(r), show(r['device_interrupts'])))
        fired = 'IRQ-entry check fired %d times' % r['checks_fired']
        if r['check_stack']:
            fired += ' (report on the %s stack)' % r['check_stack']
        by = overwriter(r)
        out.append('  %s; end magic %s%s' % (
            fired, show(r['end_magic']), by and ', overwritten in ' + by))
        out.append('  %s of %s bytes under the stack changed; panic: %s; '
                   'dd returned to user: %s' % (
                       show(r['bytes_below_changed']),
                       show(r['bytes_below_checked']),
                       r['panic'] or 'none', r['dd_returned']))
    return '\n'.join(out) + '\n'


def adoc(rows):
    return results.adoc_table('1,2,3,2,3,2,3', [
        'Stage', 'Descent', 'Deepest point (device interrupts there)',
        'IRQ-entry check (report on)', 'End magic (overwritten in)',
        'Bytes under the stack changed', 'Outcome'], [[
            r['stage'], r['descent'],
            '%s (%s)' % (deepest(r), show(r['device_interrupts'])),
            '%s (%s)' % (r['checks_fired'], r['check_stack'] or '-'),
            show(r['end_magic']) + (overwriter(r) and ', in ' + overwriter(r)),
            show(r['bytes_below_changed']), outcome(r)] for r in rows])


def main():
    results.run_experiment(
        os.path.join(BUILD, 'results'), facts.lab(4)['experiment_table'], COLUMNS,
        [lambda log, k=k, mode=mode, n=n: experiment(k, mode, n, log)
         for mode, n in DESCENTS for k in STAGES], text, adoc)


if __name__ == '__main__':
    main()
