# What each stage does with stacks, seen in the running guest through gdb
# (batch mode), on both CPUs. What each stage should show (THREAD_SIZE,
# and whether a device interrupt and a softirq run on a per-CPU stack of
# their own or on the interrupted task's) is vm/stages.toml's table.
#
# THREAD_SIZE is read as the kernel uses it: every task's initial stack
# pointer (thread.sp0) lies THREAD_SIZE - TOP_OF_KERNEL_STACK_PADDING above
# its stack. The stack $sp is on is found from raw addresses: the task's
# stack pointer and the per-CPU hardirq/softirq stack pointers. Where a stage
# has IRQ stacks, the esp saved at the bottom word of the IRQ stack must
# point back into the interrupted task's stack. The project's ks- commands
# (gdb-scripts/) must report what these raw facts show; tests/
# check_commands.py holds the ones beyond ks-where and ks-irqstacks. The
# raw facts are the records of tests/gdb/stage_facts.py.
import os

from tests import check_commands
from tests.checklib import Guest, expect, facts, in_guest, probe, records, stages
from vm.session.session import stage_obj

HERE = os.path.dirname(os.path.abspath(__file__))


def within(addr, base, size):
    return base is not None and base <= addr < base + size


def hexes(v):
    return 'none' if v is None else '%#x' % v


for k in stages():
    stage = facts.stage(k)
    ts = stage['thread_size']
    # arch/x86/include/asm/thread_info.h: 16 bytes with CONFIG_VM86, else 8.
    with open(os.path.join(stage_obj(k), '.config')) as f:
        pad = 16 if 'CONFIG_VM86=y\n' in f.read() else 8

    with Guest(k, '/tests/irq-load.sh') as guest:
        if not in_guest('stage %d: the guest runs its workload' % k,
                        lambda: guest.wait_for('irq-load: [0-9]+ CPUs')):
            continue
        run = probe(guest, 'stage_facts.py', 240)

    def report(good, what, got=None):
        expect(good, 'stage %d: %s' % (k, what), got)

    # THREAD_SIZE from every task but the boot CPU's idle task (pid 0) and
    # tasks that have exited: their stack is already freed (stack=0x0)
    # while they wait on the task list to be reaped.
    sizes = sorted(set(t['sp0'] - t['stack'] + pad for t in records(run, 'task')
                       if t['pid'] != 0 and t['stack'] != 0))
    report(sizes == [ts], 'every task\'s stack is THREAD_SIZE = %d bytes' % ts,
           sizes or 'no tasks')

    cpus = records(run, 'cpus')
    cpus = cpus[0]['count'] if cpus else 0
    if cpus < 2:
        report(False, 'the guest has 2 CPUs', cpus or 'none')
    stops = {(s['handler'], s['cpu']): s for s in records(run, 'stop')}
    for kind in ('hardirq', 'softirq'):
        own_stacks = stage['%s_stacks' % kind]
        for cpu in range(cpus):
            s = stops.get((kind, cpu))
            what = 'a %s handler on CPU %d runs on' % (kind, cpu)
            if not s or not s['seen']:
                report(False, '%s ... (no %s caught on CPU %d)' % (what, kind, cpu))
                continue
            sp, own, saved, task = s['sp'], s[kind], s['saved_esp'], s['task_stack']
            if own_stacks:
                report(within(sp, own, ts) and within(saved or 0, task, ts),
                       "%s this CPU's %s stack (sp %#x), its saved esp %s is in "
                       "the task's stack" % (what, kind, sp, hexes(saved)),
                       '%s stack %s, task stack %#x' % (kind, hexes(own), task))
            else:
                report(own is None and within(sp, task, ts),
                       "%s the interrupted task's stack (sp %#x, %s), no %s stack "
                       "exists" % (what, sp, s['comm'], kind),
                       'task stack %#x, %s stack %s' % (task, kind, hexes(own)))
            # gdb-scripts' ks-where must name the same stack, with the
            # same base.
            says = ' '.join(line.strip() for line in s['said']['ks-where'].splitlines()
                            if line.startswith(('CPU ', '  area ')))
            if own_stacks:
                want, base = "CPU %d's %s stack" % (cpu, kind), own
            else:
                want, base = 'the task stack of pid %d ' % s['pid'], task
            report(('is on ' + want) in says and 'area %s-' % hexes(base) in says,
                   'ks-where on CPU %d at the %s handler says: %s'
                   % (cpu, kind, want.strip()), says)
            # ks-irqstacks, listed at the same stop, must show this CPU on
            # its stack, with the saved esp read raw above, on one line.
            rows = [' '.join(line.split())
                    for line in s['said']['ks-irqstacks'].splitlines()]
            if own_stacks:
                row = '%d %s %s-%#x yes %s ' % (cpu, kind, hexes(own),
                                                (own or 0) + ts, hexes(saved))
                what = ('ks-irqstacks lists CPU %d on its %s stack with saved '
                        'esp %s' % (cpu, kind, hexes(saved)))
            else:
                row = 'This stage has no IRQ stacks'
                what = 'ks-irqstacks says the stage has no IRQ stacks'
            report(any(row in r for r in rows), what,
                   "wanted '%s' in: %s" % (row, s['said']['ks-irqstacks']))
    # The other ks- commands (ks-bt, ks-thread-info, ks-stack-picture,
    # ks-stack-use, ks-watch-switch, $current_thread_info) at the same stops.
    check_commands.check(k, run.records, report)
