"""What the gdb tasks of labs 0 and 1 (my_bt.py, my_xbt.py) are given:
reading the guest's words and registers, naming the function that
holds a code address, and a gdb command that prints a walk's frames.
The walk itself is the learner's to write.

gdb finds this file (labs.taskgdb) because gdb-scripts/load.py puts the
top of the checkout on its path, in a lab's session as in a grader's.
"""
import gdb

from vm.session import facts

# PAGE_OFFSET: kernel addresses lie above it (vm/stages.toml's i386 record).
KERNEL_START = facts.machine_record('i386')['kernel_start']
MAX_FRAMES = 64                # a chain that loops must still end


def word(addr):
    """The 32-bit word at ADDR in the guest."""
    return int(gdb.parse_and_eval('*(unsigned int *)%d' % addr)) & 0xffffffff


def reg(name):
    """A register of the selected CPU ('pc', 'sp', 'ebp'), unsigned."""
    return int(gdb.parse_and_eval('$' + name)) & 0xffffffff


def function_of(pc):
    """The name of the function that holds the code address PC (gdb's
    'info symbol'), or None."""
    text = gdb.execute('info symbol %#x' % pc, to_string=True)
    if text.startswith('No symbol'):
        return None
    return text.split(' in section ')[0].split(' + ')[0].strip()


def at_first_instruction(pc):
    """PC is the first instruction of its function (where a breakpoint
    on the function stops)."""
    text = gdb.execute('info symbol %#x' % pc, to_string=True)
    return not text.startswith('No symbol') and ' + ' not in text


def command(name, doc, frames, line):
    """Define the gdb command NAME (help: DOC): it prints LINE(i, found)
    for each frame i of what FRAMES() found."""
    class Command(gdb.Command):
        __doc__ = doc

        def invoke(self, arg, from_tty):
            found = frames()
            for i in range(len(found)):
                gdb.write(line(i, found))
    Command(name, gdb.COMMAND_STACK)
