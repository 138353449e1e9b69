# Hold gdb-scripts' commands against raw facts (tests/checks/60-*).
#
# Usage: python3 check_commands.py STAGE THREAD_SIZE IRQ_STACKS(0|1) < facts
#
# The facts come from tests/gdb/stage_facts.py: raw per-CPU values, gdb's
# own DWARF unwind, and beside them what each ks- command printed at the
# same stop. Prints one "ok - " or "not ok - " line per check.
import re
import sys

stage, ts, irq_stacks = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'
facts = sys.stdin.read().splitlines()
MAGIC = 0x57ac6e9d


def report(good, what):
    print('%s - stage %s: %s' % ('ok' if good else 'not ok', stage, what))


def lines(prefix):
    return [f[len(prefix):] for f in facts if f.startswith(prefix)]


def fields(line):
    return dict(kv.split('=', 1) for kv in line.split() if '=' in kv)


def num(text):
    return int(text, 0)


def check_stop(kind, cpu):
    head = lines('fact %s cpu=%d ' % (kind, cpu))
    if not head or 'not-seen' in head[0]:
        report(False, '%s stop on CPU %d was reached' % (kind, cpu))
        return
    f = fields(head[0])
    sp, task = num(f['sp']), num(f['task_stack'])
    own = num(f[kind]) if irq_stacks else None
    tag = '%s cpu=%d: ' % (kind, cpu)
    raw = fields(' '.join(lines('fact raw ' + tag)))

    def area_of(addr):
        if own is not None and own <= addr <= own + ts:
            return '%s cpu%d' % (kind, cpu)
        if task <= addr <= task + ts:
            return 'task %s %s' % (f['pid'], f['comm'])
        return 'other'

    where = 'at the %s handler on CPU %d' % (kind, cpu)

    # ks-bt: each frame labelled with the stack its address lies on; the
    # frames it puts on the IRQ stack are the frames gdb's DWARF unwinder
    # finds strictly inside it; a switch marker iff the stage switches.
    bt = lines('fact ks-bt ' + tag)
    frames = [re.match(r'#(\d+)\s+(0x[0-9a-f]+) (\S+)\s+(.*)$', b) for b in bt]
    frames = [m for m in frames if m]
    mislabelled = [m.group(0) for m in frames if m.group(4) != '?' and
                   area_of(num(m.group(2))) not in (m.group(4), 'other')]
    report(frames and not mislabelled,
           'ks-bt %s labels every frame with its stack (%d frames%s)' % (
               where, len(frames),
               '; wrong: ' + '; '.join(mislabelled) if mislabelled else ''))
    dwarf = [d.rsplit(' sp=', 1) for d in lines('fact dwarf ' + tag)]
    first = dwarf[0][0] if dwarf else None
    report(frames and frames[0].group(3) == first,
           'ks-bt %s starts in %s' % (where, first))
    if irq_stacks:
        want = set(n for n, s in dwarf if own <= num(s) < own + ts)
        got = set(m.group(3).split('+')[0] for m in frames
                  if m.group(4) == '%s cpu%d' % (kind, cpu))
        report(want and want == got,
               'ks-bt %s puts on the %s stack the frames gdb unwinds there '
               '(%s; ks-bt: %s)' % (where, kind, ' '.join(sorted(want)),
                                    ' '.join(sorted(got))))
        marker = '^^ %s cpu%d was reached from task %s %s below ^^' % (
            kind, cpu, f['pid'], f['comm'])
        report(marker in bt, 'ks-bt %s marks the switch: %s' % (where, marker))
    else:
        report(not any(b.startswith('^^') for b in bt[:len(frames)])
               and frames[0].group(4).startswith('task %s ' % f['pid']),
               'ks-bt %s shows the handler on the task stack, no switch' % where)

    # ks-thread-info: 2.6's computation from sp, 6.1's thread_info, magic.
    ti = ' '.join(lines('fact ks-thread-info ' + tag))
    old = sp & ~(ts - 1)
    good = '2.6: thread_info = sp & ~(THREAD_SIZE-1) = %#x' % old in ti
    if irq_stacks:
        good = good and ("sp is on CPU %d's %s stack" % (cpu, kind) in ti and
                         'word: %s' % f['saved_esp'] in ti)
    else:
        good = good and '6.1 keeps there: end_of_stack()' in ti
    report(good, 'ks-thread-info %s: 2.6 would look at %#x (%s)' % (
        where, old, 'the IRQ stack bottom' if irq_stacks else 'the end magic'))
    intact = num(raw['end_word']) == MAGIC
    report(('= %s (task_struct' % raw['thread_info']) in ti and
           ('STACK_END_MAGIC intact' in ti) == intact,
           'ks-thread-info %s: thread_info at %s, end magic %s' % (
               where, raw['thread_info'], 'intact' if intact else 'overwritten'))
    cti = lines('fact ks current_thread_info ' + tag)
    report(cti == [raw['thread_info']],
           '$current_thread_info(%d) is &current->thread_info %s (got %s)' % (
               cpu, raw['thread_info'], cti))

    # ks-stack-picture: the area, $sp, the bottom word.
    pic = lines('fact ks-stack-picture ' + tag)
    base = own if irq_stacks else task
    bottom = ('saved esp %s -> task %s' % (f['saved_esp'], f['pid'])
              if irq_stacks else 'STACK_END_MAGIC, intact')
    good = (any(p.startswith('%#010x +' % (base + ts)) for p in pic) and
            any(p.startswith('%#010x | <- $sp' % sp) for p in pic) and
            any(p.startswith('%#010x +' % base) for p in pic) and
            any(bottom in p for p in pic))
    report(good, 'ks-stack-picture %s draws %#x-%#x, $sp at %#x, bottom: %s'
           % (where, base, base + ts, sp, bottom))

    # ks-stack-use: the deepest use of the stack $sp is on is at least
    # what is in use now.
    name = '%s cpu%d' % (kind, cpu) if irq_stacks else \
        'task %s %s' % (f['pid'], f['comm'])
    rows = [r.split() for r in lines('fact ks-stack-use ' + tag)
            if r.startswith(name + ' ')]
    used_now = base + ts - sp
    deepest = int(rows[0][-2]) if rows else -1
    report(rows and deepest >= used_now and int(rows[0][-4]) == ts,
           'ks-stack-use %s: %s used %d deep at most, >= %d in use now'
           % (where, name, deepest, used_now))


cpus = int(lines('fact cpus=')[0])
for kind in ('hardirq', 'softirq'):
    for cpu in range(cpus):
        check_stop(kind, cpu)

# The kernel's record of exited tasks, as ks-stack-use read it at the last
# stop, is the least "bytes left" the kernel had logged by then ("used
# greatest stack depth"; the log is read at that same stop).
logged = [int(x) for x in re.findall(r'greatest stack depth: (\d+) bytes left',
                                     '\n'.join(lines('fact dmesg: ')))]
record = [int(x) for x in re.findall(r'left (\d+) bytes unused',
                                     '\n'.join(facts))]
report(logged and record and record[-1] == min(logged),
       'ks-stack-use reads the kernel\'s record %s = the least "bytes left" '
       'logged %s' % (record[-1:], min(logged) if logged else None))

# ks-watch-switch: stage 1 has nothing to watch; elsewhere, stopped at
# __handle_irq's xchg from a task stack, its line must give the raw $sp
# (the esp before), the current task, and $ebx = that CPU's hardirq stack
# top (the esp after).
switched = lines('fact ks-watch-switch: ')
if not irq_stacks:
    report(any('never switches stacks' in e
               for e in lines('fact ks-watch-switch error: ')),
           'ks-watch-switch says this stage never switches stacks')
elif not lines('fact watched '):
    report(False, 'ks-watch-switch stopped at a switch from a task stack '
           '(no stop recorded: did gdb time out?)')
else:
    w = fields(lines('fact watched ')[0])
    c = w['cpu']
    onto = [s for s in switched if s.startswith('ks-switch CPU%s onto' % c)]
    m = onto and re.search(r'esp (0x[0-9a-f]+) \(task (\d+) .*-> (0x[0-9a-f]+) '
                           r'\(hardirq cpu%s\)' % c, onto[-1])
    top = num(w['hardirq']) + ts
    report(m and num(m.group(1)) == num(w['sp']) and m.group(2) == w['pid']
           and num(m.group(3)) == top == num(w['ebx']) and
           num(w['task_stack']) <= num(w['sp']) < num(w['task_stack']) + ts,
           'ks-watch-switch shows esp %s moving from the task stack of pid %s '
           'onto CPU %s\'s hardirq stack top %#x (%s)' % (
               w['sp'], w['pid'], c, top, onto[-1] if onto else 'no switch seen'))
