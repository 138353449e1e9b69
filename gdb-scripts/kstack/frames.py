# ks-bt: a backtrace that follows the frame-pointer chain across stacks.
#
# With CONFIG_FRAME_POINTER every i386 function starts with
#   push %ebp; mov %esp,%ebp
# so [ebp] is the caller's ebp and [ebp+4] the return address. The chain
# does not care which stack a frame is on: after the xchg onto an IRQ
# stack, the first function there saves an ebp that points back into the
# task stack. The entry code marks an interrupt or exception frame by
# putting the pt_regs address with its top bit cleared in ebp
# (ENCODE_FRAME_POINTER, arch/x86/include/asm/frame.h); the kernel's own
# unwinder decodes it the same way (decode_frame_pointer()).
import gdb

from kstack import stacks

MAX_FRAMES = 64
KERNEL_START = 0xc0000000    # PAGE_OFFSET of the lab kernels (3G/1G split)


class Frame:
    def __init__(self, pc, where, area, note=''):
        self.pc, self.where, self.area, self.note = pc, where, area, note


def _regs(addr):
    return gdb.Value(addr).cast(gdb.lookup_type('struct pt_regs').pointer())


def walk(cpu, start=None):
    """The frames of CPU, innermost first; from START, a (pc, sp, ebp)
    the kernel saved (an oops's pt_regs), instead of CPU's registers."""
    known = stacks.areas(cpu)
    pc, sp, bp = start or stacks.regs_of(cpu, 'pc', 'sp', 'ebp')
    frames = [Frame(pc, sp, stacks.find_area(sp, cpu, known))]
    # Stopped on a function's first instruction (push %ebp) or its second,
    # the return address is still at the top of the stack, not at ebp+4.
    name = stacks.symbol(pc)
    if start is None and ('+' not in name or name.endswith('+1')):
        ret_at = sp if '+' not in name else sp + 4
        frames.append(Frame(stacks.word(ret_at), ret_at,
                            stacks.find_area(ret_at, cpu, known)))
    while bp and len(frames) < MAX_FRAMES:
        if not bp & 0x80000000:
            where = bp | 0x80000000
            if stacks.find_area(where, cpu, known) is None:
                frames[-1].note = 'ebp %#x is neither a frame nor pt_regs ' \
                                  'on a known stack: the chain ends' % bp
                break
            regs = _regs(where)
            user = int(regs['cs']) & 3
            frames[-1].where = where
            frames[-1].area = stacks.find_area(where, cpu, known)
            frames[-1].note = 'pt_regs at %#x: %s, interrupted %s' % (
                where, 'entry from user mode' if user else 'kernel entry',
                'user code' if user else 'here:')
            if user:
                break
            pc, bp = int(regs['ip']) & 0xffffffff, int(regs['bp']) & 0xffffffff
            if pc < KERNEL_START:
                # A new thread's first frame: ret_from_fork's pt_regs,
                # with no kernel code under it.
                frames[-1].note = 'pt_regs at %#x: a new thread\'s first ' \
                                  'frame, nothing under it' % where
                break
            frames.append(Frame(pc, bp, stacks.find_area(bp, cpu, known)))
            continue
        area = stacks.find_area(bp, cpu, known)
        if area is None:
            break            # not a stack we know: the chain ends here
        nxt, pc = stacks.word(bp), stacks.word(bp + 4)
        frames[-1].where, frames[-1].area = bp, area
        if not pc:
            break
        # The outermost frame (a 0 ebp, or user mode's ebp saved by a
        # system call's entry) is shown at its caller's sp.
        nxt_area = stacks.find_area(nxt, cpu, known) if nxt else None
        encoded = nxt and not nxt & 0x80000000   # a pt_regs pointer
        at = nxt if nxt_area or encoded else bp + 8
        frames.append(Frame(pc, at, stacks.find_area(at, cpu, known)))
        if nxt and nxt & 0x80000000 and nxt_area is None:
            frames[-1].note = 'saved ebp %#x is not on a kernel stack (user mode'"'"'s): the chain ends' % nxt
            break
        if nxt and nxt & 0x80000000 and nxt <= bp and \
                stacks.find_area(nxt, cpu, known) is area:
            break            # a chain must climb within one stack
        bp = nxt
    return frames


class KsBt(stacks.Command):
    """Backtrace of a CPU across its stacks, by frame pointers.

Usage: ks-bt [CPU]    (default: the CPU of the selected gdb thread)

Lists the frames innermost first, each with the address of its frame
(its saved ebp) and the stack it lies on, and marks where the chain moves
from one stack to another: task -> hardirq when a device interrupt was
switched onto the IRQ stack, hardirq/task -> softirq for softirqs run on
their own stack. An interrupt or exception entry shows the pt_regs it
saved and continues with the code it interrupted."""

    def __init__(self):
        super(KsBt, self).__init__('ks-bt', gdb.COMMAND_STACK)

    def run(self, arg):
        for line in lines(walk(stacks.parse_cpu(arg))):
            gdb.write(line + '\n')


def lines(frames):
    """FRAMES as ks-bt prints them: one line each, a mark where the chain
    moves from one stack to another."""
    # The address is the frame's (where its saved ebp lies), not code.
    out = ['%-3s %-10s %-34s %s' % ('#', 'frame at', 'code (function+offset)',
                                    'stack the frame is on')] if frames else []
    for i, f in enumerate(frames):
        if i and f.area is not frames[i - 1].area:
            if f.area is None:
                # Not a switch of stacks: the chain has run into memory
                # that is no stack the ks- commands know (the boot code's
                # first frame, or an ebp that is not a frame).
                out.append('   -- below: no stack the ks- commands know --')
            else:
                out.append('   ^^ %s was reached from %s below ^^' % (
                    _label(frames[i - 1].area), _label(f.area)))
        name = stacks.symbol(f.pc) if i == 0 else stacks.caller(f.pc)
        out.append('#%-2d %#010x %-34s %s' % (i, f.where, name[:34], _label(f.area)))
        if f.note:
            out.append('    %s' % f.note)
    return out


def _label(area):
    return area.short() if area else '?'


KsBt()
