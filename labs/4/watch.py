# Lab 4's batch run (labs/4/experiment.py): stop where stackdeep starts its
# descent, put a hardware watchpoint on the current task's STACK_END_MAGIC
# word for as long as the descent lasts, and say who overwrote it, if
# anyone: one "watch" record (vm/session/results.py) for the experiment's table.
# The guest then runs on.
import re

import gdb
from kstack import stacks
from vm.session import results

gdb.execute('set breakpoint pending on')
starts = [gdb.Breakpoint(f) for f in ('frames_write', 'room_write')]
gdb.execute('continue')
for bp in starts:
    bp.delete()

task = gdb.parse_and_eval('$lx_per_cpu("current_task")').dereference()
base = int(task['stack'])
found = dict(task=task['comm'].string(), stack='%#x' % base)
# Until the write returns: after that the task exits, and its freed stack
# page is soon someone else's memory.
done = gdb.FinishBreakpoint(gdb.newest_frame(), internal=True)
watch = gdb.Breakpoint('*(unsigned long *)%d' % base, gdb.BP_WATCHPOINT,
                       gdb.WP_WRITE)
stops = []
gdb.events.stop.connect(stops.append)
# A guest that dies at once (a triple fault: QEMU exits) ends gdb's
# continue without a stop.
exits = []
gdb.events.exited.connect(exits.append)


def stopped_by():
    """What stopped gdb, if not the watchpoint: the write's return, a
    signal, or the guest's end, and where."""
    if exits:
        return 'the guest ended'
    e = stops[-1] if stops else None
    if isinstance(e, gdb.BreakpointEvent):
        why = 'the write returned'
    elif isinstance(e, gdb.SignalEvent):
        why = 'signal ' + e.stop_signal
    else:
        why = 'no stop event'
    try:
        return '%s, in %s' % (why, gdb.newest_frame().name())
    except gdb.error as err:
        return '%s (%s)' % (why, err)


gdb.execute('continue')
if watch.hit_count:
    sp = int(gdb.parse_and_eval('$sp')) & stacks.mask()
    bt = gdb.execute('ks-bt', to_string=True)
    names = re.findall(r'^#\d+\s+0x[0-9a-f]+ (\S+?)(?:\+\d+)?\s', bt, re.M)
    # The interrupt the overwriting code runs in, if any (ks-bt follows
    # the frame pointers through the entry code's pt_regs).
    via = next((n for n in names if 'interrupt' in n or n.startswith('exc_')),
               'none')
    # (no frame named: who wrote is unknown, an empty string)
    found.update(overwritten_by=names[0] if names else '', via=via,
                 sp_from_end=sp - base,
                 where=' '.join(gdb.execute('ks-where', to_string=True).split()))
else:
    found.update(overwritten_by='nobody', stopped=stopped_by())
results.emit('watch', **found)
watch.delete()
# The write's return is of no more use: a finish breakpoint left behind
# may fire in another context while the guest runs on.
if done.is_valid():
    done.delete()
try:
    gdb.execute('continue')
except gdb.error:
    pass                       # the guest ended (or panicked) meanwhile
