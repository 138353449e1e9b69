# ks-bt: a backtrace that follows the frame-pointer chain across stacks.
#
# With CONFIG_FRAME_POINTER every i386 function starts with
#   push %ebp; mov %esp,%ebp
# so [ebp] is the caller's ebp and [ebp+4] the return address (x86_64,
# lab 7's kernel, the same with rbp and 8-byte words). The chain
# does not care which stack a frame is on: after the switch onto an IRQ
# stack, the first function there saves an ebp that points back into the
# task stack. The entry code marks an interrupt or exception frame by
# putting the pt_regs address in ebp, encoded so that it is no frame
# pointer (ENCODE_FRAME_POINTER, arch/x86/include/asm/frame.h): i386
# clears its top bit, x86_64 sets its lowest. The kernel's own unwinder
# decodes it the same way (decode_frame_pointer()).
import gdb

from kstack import stacks
from vm.session import facts

MAX_FRAMES = 64


def kernel_start():
    """The lowest kernel address: i386's PAGE_OFFSET (the 3G/1G split), or
    the start of x86_64's upper half (vm/stages.toml's machine records)."""
    return facts.machine_record('x86_64' if stacks.is_64bit() else 'i386')['kernel_start']


def pt_regs_at(bp):
    """The pt_regs address that an entry encoded in BP, or None when BP is
    a plain frame pointer."""
    if stacks.is_64bit():
        return bp & ~1 if bp & 1 else None
    return bp | 0x80000000 if not bp & 0x80000000 else None


class Frame:
    def __init__(self, pc, where, area, note=''):
        self.pc, self.where, self.area, self.note = pc, where, area, note


def _regs(addr):
    return gdb.Value(addr).cast(gdb.lookup_type('struct pt_regs').pointer())


def walk(cpu, start=None):
    """The frames of CPU, innermost first; from START, a (pc, sp, ebp)
    the kernel saved (an oops's pt_regs), instead of CPU's registers."""
    known = stacks.areas(cpu)
    w = stacks.word_bytes()
    pc, sp, bp = start or stacks.regs_of(cpu, 'pc', 'sp', 'bp')
    frames = [Frame(pc, sp, stacks.find_area(sp, cpu, known))]
    # Stopped on a function's first instruction (push %ebp) or its second,
    # the return address is still at the top of the stack, not at ebp+4.
    name = stacks.symbol(pc)
    if start is None and ('+' not in name or name.endswith('+1')):
        ret_at = sp if '+' not in name else sp + w
        frames.append(Frame(stacks.word(ret_at), ret_at,
                            stacks.find_area(ret_at, cpu, known)))
    while bp and len(frames) < MAX_FRAMES:
        where = pt_regs_at(bp)
        if where is not None:
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
            pc, bp = int(regs['ip']) & stacks.mask(), int(regs['bp']) & stacks.mask()
            if pc < kernel_start():
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
        nxt, pc = stacks.word(bp), stacks.word(bp + w)
        frames[-1].where, frames[-1].area = bp, area
        if not pc:
            break
        # The outermost frame (a 0 ebp, or user mode's ebp saved by a
        # system call's entry) is shown at its caller's sp.
        nxt_area = stacks.find_area(nxt, cpu, known) if nxt else None
        plain = nxt and pt_regs_at(nxt) is None     # else a pt_regs pointer
        at = nxt if nxt_area or (nxt and not plain) else bp + 2 * w
        frames.append(Frame(pc, at, stacks.find_area(at, cpu, known)))
        if plain and nxt_area is None:
            frames[-1].note = 'saved ebp %#x is not on a kernel stack (user mode'"'"'s): the chain ends' % nxt
            break
        if plain and nxt <= bp and \
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

    NAME = 'ks-bt'

    def run(self, arg):
        for line in lines(walk(stacks.parse_cpu(arg))):
            gdb.write(line + '\n')


def lines(frames):
    """FRAMES as ks-bt prints them: one line each, a mark where the chain
    moves from one stack to another."""
    # The address is the frame's (where its saved ebp lies), not code.
    width = 2 + 2 * stacks.word_bytes()      # an address: 0x and its digits
    out = ['%-3s %-*s %-34s %s' % ('#', width, 'frame at', 'code (function+offset)',
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
        out.append('#%-2d %#0*x %-34s %s' % (i, width, f.where, name[:34],
                                             _label(f.area)))
        if f.note:
            out.append('    %s' % f.note)
    return out


def _label(area):
    return area.short() if area else '?'


KsBt()
