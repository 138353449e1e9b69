# gdb side of tests/checks/32-lab3-hints.py: after lab 3's stop,
# do what each hint of its menu says, in the menu's order, as a learner
# following it would, and hand the host one record per hint. The host
# judges (and checks that every hint of the menu has a record: a hint
# added to the menu without an entry in DO below is reported, not
# skipped).
#
# Records:
#   hint    hint (the menu's command text); output (what its commands
#           printed; a stop's own report is not part of it, so:) stops
#           (after each command that ran the guest: the function and the
#           source line gdb stopped at); error (gdb's error, if a command
#           failed)

import gdb

from vm.session import facts
from vm.session import results
from labs.gdbutil import ordinary_interrupt, run, stepi_off

XCHG = 'xchg   %ebx,%esp'



def menu():
    """The hints of lab 3's banner (labs/3/lab.toml), in order."""
    return facts.banner_commands(facts.lab(3)['banner'])


class Hint:
    def __init__(self):
        self.output, self.stops = '', []

    def run(self, *commands):
        for command in commands:
            self.output += run(command)

    def go(self, command):
        """A command that runs the guest: where it stopped."""
        self.run(command)
        frame = gdb.selected_frame()
        sal = frame.find_sal()
        text = ''
        if sal.symtab:
            with open(sal.symtab.fullname()) as f:
                text = f.read().splitlines()[sal.line - 1].strip()
        self.stops.append([frame.name(), text])


def walk(h):
    # The walk wants an interrupt of kernel code on a task stack: the menu
    # says so, and its `tbreak do_IRQ` hint gets the next one.
    for _ in range(50):
        if ordinary_interrupt():
            break
        h.run('tbreak do_IRQ')
        h.go('continue')
    h.stops = []
    for _ in range(10):
        h.go('step')


def to_the_xchg(h):
    h.run('x/5i $pc')
    for _ in range(8):
        if XCHG in run('x/i $pc'):
            break
        h.go('stepi')
    h.run('x/i $pc', 'ks-where')
    stepi_off(int(gdb.selected_frame().pc()), lambda: h.go('stepi'))
    h.run('ks-where')


DO = {
    'p sizeof(init_stack)': lambda h: h.run('p sizeof(init_stack)'),
    'ks-where': lambda h: h.run('ks-where'),
    'ks-thread-info': lambda h: h.run('ks-thread-info'),
    'ks-stack-picture': lambda h: h.run('ks-stack-picture'),
    'ks-stack-use': lambda h: h.run('ks-stack-use'),
    'step': walk,
    'x/5i $pc': to_the_xchg,
    'tbreak do_IRQ': lambda h: (h.run('tbreak do_IRQ'), h.go('continue')),
    'break print_stack_overflow': lambda h: (
        h.run('break print_stack_overflow'), h.go('continue')),
    'ks-irqstacks': lambda h: h.run('ks-irqstacks'),
    'ks-bt': lambda h: h.run('ks-bt'),
    # finish, as stepi, now and then ends where it started, the stop
    # reported again: a learner types it once more (stepi_off).
    'finish': lambda h: (stepi_off(int(gdb.selected_frame().pc()),
                                   lambda: h.go('finish')), h.run('lx-dmesg')),
    'delete / quit': lambda h: h.run('delete', 'info breakpoints'),
}

for hint in menu():
    h = Hint()
    fields = {}
    try:
        if hint in DO:
            DO[hint](h)
    except gdb.error as e:
        fields['error'] = str(e)
    results.emit('hint', hint=hint, output=h.output, stops=h.stops, **fields)
# The menu's last hint: quit ends gdb (and, under make lab, the guest).
gdb.execute('quit')
