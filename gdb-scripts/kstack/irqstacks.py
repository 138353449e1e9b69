# ks-irqstacks: the per-CPU hardirq and softirq stacks, and $hardirq_ctx /
# $softirq_ctx, the 2.6 names for them.
import gdb

from kstack import stacks


def _describe(addr, cpu):
    area = stacks.find_area(addr, cpu)
    return area.short() if area else 'no live stack (task exited?)'


class KsIrqstacks(stacks.Command):
    """List every CPU's hardirq and softirq stacks.

Usage: ks-irqstacks

One row per stack: the CPU, the area (base-top), whether that CPU's $sp is
on it now, and the esp saved in the bottom word of the area by the last
switch onto it (what 2.6 kept in irq_ctx), followed back to the stack it
was taken on. When the CPU is not on the area, that saved esp is left over
from the last interrupt or softirq it served. On a stage without IRQ stacks
(stage 1) it says so."""

    NAME = 'ks-irqstacks'

    def run(self, arg):
        if stacks.irq_stack('hardirq', 0) is None:
            gdb.write('This stage has no IRQ stacks: device interrupts and '
                      'softirqs run\non the interrupted task\'s stack.\n')
            return
        width = 2 + 2 * stacks.word_bytes()  # an address: 0x and its digits
        gdb.write('%-3s %-8s %-*s %-4s %-*s %s\n' % (
            'CPU', 'stack', 2 * width + 1, 'area', 'sp?', width + 1,
            'saved ' + stacks.reg_names()[1], 'taken on'))
        for cpu in range(stacks.nr_cpus()):
            sp = stacks.sp_of(cpu)
            for kind in ('hardirq', 'softirq'):
                base = stacks.irq_stack(kind, cpu)
                if base is None:
                    continue        # x86_64: softirqs use the hardirq stack
                if not base:
                    gdb.write('%-3d %-8s NULL: %s\n'
                              % (cpu, kind, stacks.unset_irq_stack(kind, cpu)))
                    continue
                top = base + stacks.irq_stack_size()
                saved = stacks.word(stacks.saved_sp_at(base))
                # sp == top is an empty stack of this area; sp == base
                # would be a full one (the hardirq stack's top is the
                # softirq stack's base: the same address, two meanings).
                gdb.write('%-3d %-8s %#x-%#x %-4s %#-*x %s\n' % (
                    cpu, kind, base, top,
                    'yes' if base < sp <= top else '-', width + 1, saved,
                    _describe(saved, cpu) if saved else '(never used)'))


class HardirqCtx(gdb.Function):
    """$hardirq_ctx(CPU): the base of CPU's hardirq stack, as a pointer.

2.6 named the per-CPU hardirq stacks hardirq_ctx[cpu] (union irq_ctx);
6.1 keeps a per-CPU pointer, hardirq_stack_ptr. This returns that pointer
for CPU, so that 2.6-era recipes such as x/4x $hardirq_ctx(0) still work."""

    def __init__(self, kind='hardirq'):
        super(HardirqCtx, self).__init__(stacks.registered(stacks.FUNCTIONS, kind + '_ctx'))
        self.kind = kind

    def invoke(self, cpu):
        return stacks.checked(self.ctx, int(cpu))

    def ctx(self, cpu):
        base = stacks.irq_stack(self.kind, cpu)
        if base is None:
            raise stacks.KstackError('this stage has no %s stacks'
                                     % self.kind)
        return gdb.Value(base).cast(
            gdb.lookup_type('unsigned long').pointer())


class SoftirqCtx(HardirqCtx):
    """$softirq_ctx(CPU): the base of CPU's softirq stack, as a pointer.

2.6's softirq_ctx[cpu]; 6.1's per-CPU softirq_stack_ptr."""

    def __init__(self):
        super(SoftirqCtx, self).__init__('softirq')


KsIrqstacks()
HardirqCtx()
SoftirqCtx()
