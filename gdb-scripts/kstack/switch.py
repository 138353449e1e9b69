# ks-watch-switch: report every switch onto and off an IRQ stack.
#
# 6.1's 32-bit IRQ code (arch/x86/kernel/irq_32.c) changes stacks with
#   xchgl %ebx,%esp     ebx held the new stack's top; now it holds the old esp
#   call  handler
#   movl  %ebx,%esp     back to the interrupted stack
# in __handle_irq() (execute_on_irq_stack(), inlined) and in
# do_softirq_own_stack() (call_on_stack()). At either instruction $sp is
# the esp before it and $ebx the esp after it, so one breakpoint on each
# shows the whole switch without stepping.
import gdb

from kstack import stacks

SWITCHERS = ('__handle_irq', 'do_softirq_own_stack')
ONTO, BACK = 'xchg   %ebx,%esp', 'mov    %ebx,%esp'


def switch_points():
    """(address, function, 'onto'/'back') for every switch instruction."""
    arch = gdb.selected_inferior().architecture()
    found = []
    for name in SWITCHERS:
        sym = gdb.lookup_global_symbol(name)
        if sym is None:
            continue
        block = gdb.block_for_pc(int(sym.value().address))
        while block.function is None:
            block = block.superblock
        for insn in arch.disassemble(block.start, block.end - 1):
            text = ' '.join(insn['asm'].split())
            for what, pattern in (('onto', ONTO), ('back', BACK)):
                if text == ' '.join(pattern.split()):
                    found.append((insn['addr'], name, what))
    return found


class SwitchBreakpoint(gdb.Breakpoint):
    def __init__(self, addr, function, what, stop):
        super(SwitchBreakpoint, self).__init__('*%#x' % addr)
        self.function, self.what, self.stop_here = function, what, stop
        self.silent = True

    def stop(self):
        cpu = stacks.selected_cpu()
        old, new = [int(gdb.parse_and_eval(r)) & stacks.mask()
                    for r in ('$sp', '$ebx')]
        # Called at every interrupt on every CPU: look lazily, so the task
        # list is walked only for an esp on none of this CPU's stacks.
        a, b = (stacks.find_area(x, cpu) for x in (old, new))
        # One line, short enough for 80 columns; the function is where
        # gdb stops (ks-watch-switch stop) and which stack the label says.
        gdb.write('ks-switch CPU%d %s: esp %#x (%s) -> %#x (%s)\n' % (
            cpu, self.what, old, a.short() if a else '?',
            new, b.short() if b else '?'))
        return self.stop_here


WATCHES = []


class KsWatchSwitch(stacks.Command):
    """Report every switch onto and off an IRQ stack.

Usage: ks-watch-switch          print each switch and go on
       ks-watch-switch stop     print it and stop there (then stepi)
       ks-watch-switch off      remove the watch

Puts a breakpoint on the xchg that moves esp onto the hardirq or softirq
stack and on the mov that moves it back (in __handle_irq and
do_softirq_own_stack), and prints for each a line such as
  ks-switch CPU0 onto: esp 0xc0b0dd94 (task 62 sh) -> 0xc0146000 (hardirq cpu0)
the CPU, the direction, esp before and after and the stack each lies on. On a stage
without IRQ stacks (stage 1) there is no switch to watch, and it says so.
Even without "stop", each switch is a breakpoint hit (gdb stops the guest
to print the line), so the guest runs much slower while the watch is on."""

    NAME = 'ks-watch-switch'
    KIND = gdb.COMMAND_BREAKPOINTS

    def invoke(self, arg, from_tty):
        while WATCHES:
            WATCHES.pop().delete()
        if arg.strip() != 'off':     # "off" needs no kernel to look at
            super(KsWatchSwitch, self).invoke(arg, from_tty)

    def run(self, arg):
        if arg not in ('', 'stop'):
            raise stacks.KstackError('usage: ks-watch-switch [stop|off]')
        points = switch_points()
        if not points:
            raise stacks.KstackError(
                'this stage never switches stacks: no xchg onto an IRQ stack\n'
                'in %s; interrupts run on the task\'s stack'
                % ' or '.join(SWITCHERS))
        for addr, function, what in points:
            WATCHES.append(SwitchBreakpoint(addr, function, what,
                                            arg == 'stop'))
        gdb.write('ks-watch-switch: %d switch instructions watched '
                  '(ks-watch-switch off removes them)\n' % len(points))


KsWatchSwitch()
