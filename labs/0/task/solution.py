# Lab 0's task, the project's reference solution (make check grades it;
# the learner starts from my_bt.py beside it, whose helpers are the same).
import gdb

KERNEL_START = 0xc0000000      # PAGE_OFFSET: kernel addresses lie above it
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


def frames():
    """The selected CPU's frames, innermost first, as a list of (pc,
    function) pairs: frame 0 is where the CPU is ($pc), every other one
    a return address into a caller. The grader calls this."""
    pc, sp, ebp = reg('pc'), reg('sp'), reg('ebp')
    found = [(pc, function_of(pc))]
    # At a function's first instruction (push %ebp) the call has pushed
    # the return address, but the function has no frame yet: $ebp is
    # still its caller's.
    if at_first_instruction(pc):
        ret = word(sp)
        found.append((ret, function_of(ret - 1)))
    # In a frame, [ebp] is the caller's ebp and [ebp+4] the return
    # address. The chain ends at an ebp that is not a kernel address: 0
    # at the outermost frame, or the pt_regs pointer with its top bit
    # cleared that the entry code leaves in ebp (ENCODE_FRAME_POINTER).
    while ebp >= KERNEL_START and len(found) < MAX_FRAMES:
        ret = word(ebp + 4)
        if ret < KERNEL_START:
            break
        # The call may be the last instruction of its function (one that
        # never returns): look up the byte before the return address.
        found.append((ret, function_of(ret - 1)))
        ebp = word(ebp)
    return found


class MyBt(gdb.Command):
    """my-bt: the selected CPU's backtrace, by frame pointers (lab 0's task)."""

    def __init__(self):
        super(MyBt, self).__init__('my-bt', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        for i, (pc, name) in enumerate(frames()):
            gdb.write('#%-2d 0x%08x %s\n' % (i, pc, name or '??'))


MyBt()
