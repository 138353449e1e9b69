# Hold gdb-scripts' commands against raw facts (on the host): the host side of
# tests/checks/60-stage-stacks.py, which imports it.
#
# The facts are the records of tests/gdb/stage_facts.py: raw per-CPU
# values, gdb's own DWARF unwind, and beside them what each ks- command
# printed at the same stop. What the stage should show (THREAD_SIZE, IRQ
# stacks or not, STACK_END_MAGIC) is vm/session/facts.py's. check() reports one
# line per check through REPORT(good, what, got=None).
import re

from vm.session import facts


def lines(text):
    return [line.strip() for line in text.splitlines()]


def hexes(v):
    return 'none' if v is None else '%#x' % v


def check_stop(stage, s, report):
    kind, cpu = s['handler'], s['cpu']
    if not s['seen']:
        report(False, '%s stop on CPU %d was reached' % (kind, cpu))
        return
    ts, irq_stacks = stage['thread_size'], stage['%s_stacks' % kind]
    sp, task = s['sp'], s['task_stack']
    own = s[kind] if irq_stacks else None
    if irq_stacks and own is None:
        report(False, "the kernel has CPU %d's %s stack" % (cpu, kind),
               'no %s_stack_ptr' % kind)
        return
    said = {c: lines(text) for c, text in s['said'].items()}

    def area_of(addr):
        if own is not None and own <= addr <= own + ts:
            return '%s cpu%d' % (kind, cpu)
        if task <= addr <= task + ts:
            return 'task %s %s' % (s['pid'], s['comm'])
        return 'other'

    where = 'at the %s handler on CPU %d' % (kind, cpu)

    # ks-bt: each frame labelled with the stack its address lies on; the
    # frames it puts on the IRQ stack are the frames gdb's DWARF unwinder
    # finds strictly inside it; a switch marker iff the stage switches.
    bt = said['ks-bt']
    frames = [re.match(r'#(\d+)\s+(0x[0-9a-f]+) (\S+)\s+(.*)$', b) for b in bt]
    frames = [m for m in frames if m]
    mislabelled = [m.group(0) for m in frames if m.group(4) != '?' and
                   area_of(int(m.group(2), 16)) not in (m.group(4), 'other')]
    report(frames and not mislabelled,
           'ks-bt %s labels every frame with its stack (%d frames)'
           % (where, len(frames)),
           'wrong: ' + '; '.join(mislabelled) if frames else 'no frames')
    dwarf = [(str(name), fsp) for name, fsp in s['dwarf']]
    first = dwarf[0][0] if dwarf else None
    report(frames and frames[0].group(3) == first,
           'ks-bt %s starts in %s' % (where, first),
           frames[0].group(3) if frames else 'no frames')
    if irq_stacks:
        want = set(n for n, fsp in dwarf if own <= fsp < own + ts)
        got = set(m.group(3).split('+')[0] for m in frames
                  if m.group(4) == '%s cpu%d' % (kind, cpu))
        report(want and want == got,
               'ks-bt %s puts on the %s stack the frames gdb unwinds there '
               '(%s; ks-bt: %s)' % (where, kind, ' '.join(sorted(want)),
                                    ' '.join(sorted(got))))
        marker = '^^ %s cpu%d was reached from task %s %s below ^^' % (
            kind, cpu, s['pid'], s['comm'])
        report(marker in bt, 'ks-bt %s marks the switch: %s' % (where, marker),
               [b for b in bt if b.startswith('^^')])
    else:
        report(frames and not any(b.startswith('^^') for b in bt[:len(frames)])
               and frames[0].group(4).startswith('task %s ' % s['pid']),
               'ks-bt %s shows the handler on the task stack, no switch' % where,
               '; '.join(bt[:3]))

    # ks-thread-info: 2.6's computation from sp, 6.1's thread_info, magic.
    ti = ' '.join(said['ks-thread-info'])
    old = sp & ~(ts - 1)
    good = '2.6: thread_info = sp & ~(THREAD_SIZE-1) = %#x' % old in ti
    if irq_stacks:
        good = good and ("sp is on CPU %d's %s stack" % (cpu, kind) in ti and
                         'word: %s' % hexes(s['saved_esp']) in ti)
    else:
        good = good and '6.1 keeps there: end_of_stack()' in ti
    report(good, 'ks-thread-info %s: 2.6 would look at %#x (%s)' % (
        where, old, 'the IRQ stack bottom' if irq_stacks else 'the end magic'),
        ti)
    intact = s['end_word'] == facts.kernel()['stack_end_magic']
    report(('= %#x (task_struct' % s['thread_info']) in ti and
           ('STACK_END_MAGIC intact' in ti) == intact,
           'ks-thread-info %s: thread_info at %#x, end magic %s' % (
               where, s['thread_info'], 'intact' if intact else 'overwritten'),
           ti)
    report(s['current_thread_info'] == s['thread_info'],
           '$current_thread_info(%d) is &current->thread_info %#x' % (
               cpu, s['thread_info']), hexes(s['current_thread_info']))

    # ks-stack-picture: the area, $sp, the bottom word.
    pic = said['ks-stack-picture']
    base = own if irq_stacks else task
    bottom = ('saved esp %s -> task %s' % (hexes(s['saved_esp']), s['pid'])
              if irq_stacks else 'STACK_END_MAGIC, intact')
    good = (any(p.startswith('%#010x +' % (base + ts)) for p in pic) and
            any(p.startswith('%#010x | <- $sp' % sp) for p in pic) and
            any(p.startswith('%#010x +' % base) for p in pic) and
            any(bottom in p for p in pic))
    report(good, 'ks-stack-picture %s draws %#x-%#x, $sp at %#x, bottom: %s'
           % (where, base, base + ts, sp, bottom), '; '.join(pic))

    # ks-stack-use: the deepest use of the stack $sp is on is at least
    # what is in use now.
    name = '%s cpu%d' % (kind, cpu) if irq_stacks else \
        'task %s %s' % (s['pid'], s['comm'])
    rows = [r.split() for r in said['ks-stack-use'] if r.startswith(name + ' ')]
    used_now = base + ts - sp
    deepest = int(rows[0][-2]) if rows else -1
    report(rows and deepest >= used_now and int(rows[0][-4]) == ts,
           'ks-stack-use %s: %s used %d deep at most, >= %d in use now'
           % (where, name, deepest, used_now), rows[:1])


def check(stage_number, records, report):
    """Every check of the ks- commands on the records of one stage_facts.py
    run on stage STAGE_NUMBER."""
    stage = facts.stage(stage_number)
    stops = [r for r in records if r['kind'] == 'stop']
    cpus = [r['count'] for r in records if r['kind'] == 'cpus']
    if not cpus:
        report(False, 'the probe counted the CPUs', 'no cpus record')
    by_place = {(s['handler'], s['cpu']): s for s in stops}
    for kind in ('hardirq', 'softirq'):
        for cpu in range(cpus[0] if cpus else 0):
            check_stop(stage, by_place.get((kind, cpu), dict(
                handler=kind, cpu=cpu, seen=False)), report)

    # The kernel's record of exited tasks, as ks-stack-use read it, is the
    # least "bytes left" the kernel had logged by then ("used greatest
    # stack depth"), both read at the last stop. check_stack_usage()
    # (kernel/exit.c) logs a new low, then stores it, under its lock: with
    # a CPU stopped inside it, the record may still be the low before, the
    # next line up (or THREAD_SIZE, its first value), and nothing else.
    dmesg = ([r for r in records if r['kind'] == 'dmesg'] or [{}])[0]
    logged = sorted(set(int(x) for x in re.findall(
        r'greatest stack depth: (\d+) bytes left', '\n'.join(dmesg.get('lines', [])))))
    record = [int(x) for x in re.findall(r'left (\d+) bytes unused', dmesg.get('said', ''))]
    exiting = dmesg.get('exiting', [])
    allowed = logged[:1] + ((logged[1:2] or [stage['thread_size']]) if exiting else [])
    report(logged and record and record[0] in allowed,
           'ks-stack-use reads the kernel\'s record %s = the least "bytes left" '
           'logged %s%s' % (record[:1], logged[0] if logged else None,
                            ' (or the one before: CPU %s inside check_stack_usage())'
                            % exiting if exiting else ''))

    # ks-watch-switch: a stage without hardirq stacks has nothing to
    # watch; elsewhere, stopped at __handle_irq's xchg from a task stack,
    # its line must give the raw $sp (the esp before), the current task,
    # and $ebx = that CPU's hardirq stack top (the esp after).
    w = ([r for r in records if r['kind'] == 'watch-switch'] or [None])[0]
    ts = stage['thread_size']
    if not stage['hardirq_stacks']:
        report(w and 'never switches stacks' in (w['error'] or ''),
               'ks-watch-switch says this stage never switches stacks',
               w and w['error'])
    elif not w or w['error'] or w['hardirq'] is None:
        report(False, 'ks-watch-switch stopped at a switch from a task stack '
               '(no stop recorded: did gdb time out?)', w)
    else:
        c = w['cpu']
        onto = [line for line in w['said']
                if line.startswith('ks-switch CPU%d onto' % c)]
        m = onto and re.search(r'esp (0x[0-9a-f]+) \(task (\d+) .*-> '
                               r'(0x[0-9a-f]+) \(hardirq cpu%d\)' % c, onto[-1])
        top = w['hardirq'] + ts
        report(m and int(m.group(1), 16) == w['sp'] and
               m.group(2) == str(w['pid']) and
               int(m.group(3), 16) == top == w['ebx'] and
               w['task_stack'] <= w['sp'] < w['task_stack'] + ts,
               'ks-watch-switch shows esp %#x moving from the task stack of pid '
               '%s onto CPU %s\'s hardirq stack top %#x (%s)' % (
                   w['sp'], w['pid'], c, top,
                   onto[-1] if onto else 'no switch seen'))
