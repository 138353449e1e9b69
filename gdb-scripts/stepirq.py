# Stepping through do_IRQ: what `step` and `next` do in a lab session.
#
# Every lab's stop (ks-lab-stop, labs/guard.py) loads this module, so the
# learner, the graders and the book's transcripts step the same way.
#
# 6.1's C entry of a device interrupt, common_interrupt(), is one macro
# line (DEFINE_IDTENTRY_IRQ, arch/x86/kernel/irq.c): gdb's `next` runs all
# of it, and `step` wanders into the entry plumbing (irqentry_enter, RCU,
# the preempt count, get_current) long before the code that 2.6's do_IRQ
# was. Two of gdb's own means put the walk back on 2.6's path:
#
# - `skip`: `step` steps over the plumbing below instead of into it
#   (`info skip` lists it; `skip disable N` brings one back);
# - hooks on `step` and `next` (gdb's hook-step, hook-next): typed in
#   common_interrupt, they stop at the first line of its body,
#   __common_interrupt(), after the lookup of the vector's descriptor:
#   `handle_irq(desc, regs);`. From there `step` goes on through
#   handle_irq (inlined), __handle_irq, the overflow check and the xchg
#   onto the hardirq stack: ten steps from the lab's stop.
#
# The stop is a one-shot breakpoint for the stepping CPU only: the other
# CPU never stops at it, and it is gone after the next stop, whatever
# ended the step.
import gdb

from kstack import stacks

# What `step` steps over, and why it is not part of do_IRQ's path.
PLUMBING = [
    ('function irqentry_enter', 'entry accounting: context tracking, RCU'),
    ('function irqentry_exit', 'the same on the way out (and preemption)'),
    ('function irq_enter_rcu', 'the preempt count\'s HARDIRQ bits, RCU, '
                               'the tick'),
    ('function irq_exit_rcu', 'the same on the way out; it also runs the '
                              'softirqs (break do_softirq_own_stack to see '
                              'them)'),
    ('function __common_interrupt', 'stepped into at handle_irq(desc, '
                                    'regs) instead (the hooks below)'),
    ('function get_current', 'current, read from the per-CPU current_task'),
    ('function set_irq_regs', 'the per-CPU pointer to this pt_regs'),
    ('function IS_ERR_OR_NULL', 'a test of the descriptor pointer'),
    ('function check_stack_overflow', 'the overflow check: one and of esp; '
                                      'the line that calls it is shown'),
    ('function current_stack', 'one and of esp: the current stack\'s base'),
    ('-rfunction ^(__)?preempt_count', 'the preempt count'),
    ('-rfunction ^(ct|rcu)_', 'context tracking and RCU'),
    ('-rfunction ^_raw_spin_', 'spin locks'),
    ('function add_interrupt_randomness', 'entropy from interrupt timing'),
    ('function note_interrupt', 'the spurious-interrupt detector'),
]

HOOKS = '''define hook-step
ks-before-step
end
define hook-next
ks-before-step
end
define hookpost-step
python stepirq.after_step()
end
define hookpost-next
python stepirq.after_step()
end'''

planted = []
# (thread, pc) of the last stop at the one-shot breakpoint, and what it
# was when the step or next now running began.
quiet = pending = None


def handle_irq_line():
    """FILE:LINE of `handle_irq(desc, regs);` in __common_interrupt, read
    from the stage's own source (the line differs between trees)."""
    sym = gdb.lookup_static_symbol('__common_interrupt')
    if sym is None:
        return None
    path = sym.symtab.fullname()
    with open(path) as f:
        lines = f.read().splitlines()
    for i in range(sym.line - 1, len(lines)):
        if lines[i].strip() == 'handle_irq(desc, regs);':
            return '%s:%d' % (path, i + 1)
    return None


def plant():
    """Called by hook-step and hook-next: in common_interrupt, stop the
    coming step at __common_interrupt's handle_irq line."""
    global quiet, pending
    pending, quiet = quiet, None
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        return
    if frame.name() != 'common_interrupt' or frame.level() != 0:
        return
    where = handle_irq_line()
    if where is None:
        return
    # Internal and silent: on_stop() prints the stop as a step's stop,
    # not as "Temporary breakpoint -N".
    bp = gdb.Breakpoint(where, internal=True, temporary=True)
    bp.silent = True
    bp.thread = gdb.selected_thread().global_num
    planted.append(bp)


class BeforeStep(gdb.Command):
    """Run by `step` and `next` before they step (their hooks): says in
    one line that the guest is gone, and why, instead of stepping;
    otherwise plants the stop of a step in common_interrupt."""

    def __init__(self):
        super().__init__('ks-before-step', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        gone = stacks.guest_gone()
        if gone:
            raise gdb.GdbError(gone)
        plant()


def here():
    return gdb.selected_thread().global_num, int(gdb.selected_frame().pc())


def show_frame():
    """Where the CPU is, as gdb prints a step's stop in a new function:
    the frame without its number, then the line."""
    gdb.write(gdb.execute('frame', to_string=True).split('  ', 1)[-1])


def on_stop(event):
    global quiet
    hit = isinstance(event, gdb.BreakpointEvent) and any(
        bp in planted for bp in event.breakpoints)
    while planted:
        bp = planted.pop()
        if bp.is_valid():
            bp.delete()
    if hit:
        show_frame()
        quiet = here()


def after_step():
    """After a step or next. The stop at handle_irq's line is where the
    inlined handle_irq begins: the next `step` enters it without running
    the CPU, and gdb, whose last stop was a silent one, prints nothing.
    Print it then."""
    global pending
    try:
        if pending is not None and gdb.selected_thread() and pending == here():
            show_frame()
    except gdb.error:
        pass
    pending = None


for arg, _why in PLUMBING:
    gdb.execute('skip ' + arg, to_string=True)
BeforeStep()
gdb.execute(HOOKS)
gdb.events.stop.connect(on_stop)
