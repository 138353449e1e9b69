# What a kernel died of, told from gdb at the moment of its death.
#
# labs/guard.py stops every lab, grader and transcript where the kernel
# dies: at the first instruction of oops_end() (an oops has been printed
# in full: the BUG line, the registers, the call trace, by __die() and
# show_regs(), arch/x86/kernel/dumpstack.c:436-496; what oops_end() still
# does is the register summary, then the task's death or a panic) or of
# panic() (a panic with no oops before it: "corrupted stack end detected
# inside scheduler"). There the stack the kernel died on is still
# intact, and this module reads it:
#
#   - the kernel's own words: its first BUG/Oops line and the register
#     lines, from the serial log (or the kernel's log buffer, when the
#     kernel died before its console was up);
#   - the faulting EIP as function+offset and file:line of the kernel
#     that ran (gdb's DWARF, not the oops's own guess);
#   - where esp was: the same classification as ks-where, extended to
#     "just outside a stack" (stacks.describe);
#   - a frame-pointer walk from the faulting registers across the stacks
#     the ks- commands know (ks-bt's), which needs nothing from the
#     kernel's own unwinder: a learner's new stack is on it before the
#     kernel learns of it.
#
# ks-death prints the report again at the prompt.
import os
import re
import subprocess

import gdb

from kstack import frames, stacks
from vm.session.kernelwords import FIRST, kernel_words, tree_path   # vm/session/kernelwords.py

# Where guard.py stops: function -> what the kernel is doing there.
DEATH_POINTS = {'oops_end': 'an oops', 'panic': 'a panic'}

last = None          # the report of the last death seen, for ks-death
# What the last death points at, for ks-who-wrote's default: {'kind':
# 'oops' or 'panic', 'words': the kernel's first line, 'address': the
# faulting address of a page fault (its BUG line's "address: ..."), or
# None}.
cause = None
FAULT_ADDRESS = re.compile(r'address: ([0-9a-f]+)')


def _console_text():
    """What the kernel said, from its own log buffer: at a stop every
    record is there whole, while the serial line may lag behind it (the
    other CPU holds the console) or have lost characters (a death while
    the UART is being set up). The serial log only if gdb cannot read
    the buffer."""
    try:
        text = gdb.execute('lx-dmesg', to_string=True)
        if FIRST.search(text):
            return text
    except gdb.error:
        pass
    run = os.environ.get('KS_RUN')
    if run:
        try:
            with open(os.path.join(run, 'serial.log'), 'rb') as f:
                return f.read().decode(errors='replace')
        except OSError:
            pass
    return ''


def _kernel_said(title):
    """TITLE, then the kernel's words (kernelwords.kernel_words), indented;
    nothing if it said nothing."""
    words = kernel_words(_console_text())
    return [title] + ['  ' + w for w in words] if words else []


def current_of(cpu):
    """'pid N (comm)' of the task current on CPU, or '?'."""
    try:
        t = stacks.current_task(cpu)
        return 'pid %d (%s)' % (int(t['pid']), t['comm'].string())
    except (gdb.error, gdb.MemoryError):
        return '?'


def source_of(pc):
    """'function+offset (file:line)' for a code address, naming also the
    inlined function the address lies in, if any."""
    name = stacks.symbol(pc)
    if name.startswith('0x'):
        return 'not kernel code: the CPU jumped or returned to a word that is ' \
               'not a code address'
    sal = gdb.find_pc_line(pc)
    where = ''
    if sal.symtab is not None and sal.line:
        where = '%s:%d' % (tree_path(sal.symtab.filename), sal.line)
    try:
        block = gdb.block_for_pc(pc)
        while block is not None and block.function is None:
            block = block.superblock
        if block is not None and block.function.name not in name:
            name += ', in %s (inlined)' % block.function.name
    except RuntimeError:
        pass
    return '%s (%s)' % (name, where) if where else name


def inline_chain(pc):
    """[(function, file:line)] of the code at PC, innermost first: where
    the faulting line was inlined from a header, each call it was inlined
    at, down to the function the code belongs to. binutils' addr2line -i
    reads them from the vmlinux's DWARF (gdb's Python gives no inline
    chain of an address); [] for an address it does not know (a module)."""
    try:
        out = subprocess.run(['addr2line', '-f', '-i', '-e', gdb.objfiles()[0].filename,
                              '%#x' % pc], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError, IndexError):
        return []
    lines = out.split('\n')
    return [(fn, tree_path(where.split(' ')[0]).replace('./', '', 1))
            for fn, where in zip(lines[0::2], lines[1::2]) if fn and fn != '??']


def source_line(pc):
    """The text of PC's source line, from the file gdb finds on its source
    path (the tree the kernel was built from: vm/session/session.py), or
    else from the src/ beside the vmlinux's obj/ or the pristine tree
    (lab 7's x86_64 kernel is stage 0's tree); None if none has it."""
    sal = gdb.find_pc_line(pc)
    if sal.symtab is None or not sal.line:
        return None
    obj = os.path.dirname(gdb.objfiles()[0].filename)
    name = tree_path(sal.symtab.filename)
    for path in (sal.symtab.fullname(),
                 os.path.join(os.path.dirname(obj), 'src', name),
                 os.path.join(os.path.dirname(os.path.dirname(obj)), 'src', 'linux', name)):
        try:
            with open(path) as f:
                return f.read().split('\n')[sal.line - 1].strip()
        except (OSError, IndexError):
            continue
    return None


def _fault_regs():
    """(ip, sp, bp) of the oops: oops_end(flags, regs, signr) is stopped
    on its first instruction, regs its second argument."""
    regs = stacks.arg(2).cast(gdb.lookup_type('struct pt_regs').pointer())
    return tuple(int(regs[f]) & stacks.mask() for f in ('ip', 'sp', 'bp'))


def _panic_message():
    # panic(fmt, ...): on i386 a variadic function gets no regparm, so fmt
    # is the word above the return address; on x86_64 it is in rdi.
    try:
        fmt = (stacks.arg(1) if stacks.is_64bit() else
               gdb.parse_and_eval('*(char **)($esp + 4)'))
        return fmt.cast(gdb.lookup_type('char').pointer()).string().strip()
    except (gdb.error, gdb.MemoryError, UnicodeDecodeError):
        return '?'


def examine():
    """The report, as lines, of the death this CPU is stopped at."""
    global last
    cpu = stacks.selected_cpu()
    pc = int(gdb.selected_frame().pc())
    point = stacks.symbol(pc).split('+')[0]
    out = ['==== the kernel died: %s on CPU %d ====' % (
        DEATH_POINTS.get(point, point), cpu)]
    said = _kernel_said("The kernel's words:")
    out += said
    global cause
    first = said[1].strip() if said else ''
    m = FAULT_ADDRESS.search(first)
    cause = {'kind': 'oops' if point == 'oops_end' else 'panic', 'words': first,
             'address': int(m.group(1), 16) if m else None}
    if point == 'oops_end':
        ip, sp, bp = _fault_regs()
        out.append('It faulted at %s %#x: %s' % (stacks.reg_names()[0], ip,
                                                 source_of(ip)))
        line = source_line(ip)
        if line:
            out.append('  the line: %s' % line)
        chain = inline_chain(ip)
        if len(chain) > 1:
            out.append('  inlined: %s' % ', called at '.join(
                '%s() %s' % c for c in chain))
        start = (ip, sp, bp)
    else:
        out.append('It called panic("%s")' % _panic_message())
        sp, start = stacks.sp_of(cpu), None
        # On panic's first instruction the return address is at esp.
        out.append('  from %s' % source_of(stacks.word(sp) - 1))
    try:
        out.append('%s was %#x, %s' % (stacks.reg_names()[1], sp,
                                       stacks.describe(sp, cpu)))
        walked = frames.walk(cpu, start)
        out.append('Its frames, by frame pointers from the %s (ks-bt\'s walk):'
                   % ('faulting registers' if point == 'oops_end' else 'panic'))
        out += ['  ' + l for l in frames.lines(walked)]
        out.append("(gdb's own bt stops where the entry code saved pt_regs, with "
                   "'?? ()' and 'corrupt stack?': the stack is not corrupt there; "
                   "ks-bt walks on through it, as above)")
        out += unset_irq_stacks()
    except (gdb.error, gdb.MemoryError) as e:
        out.append('(the stacks could not be read: %s)' % e)
    last = out
    return out


def unset_irq_stacks():
    """A line for each online CPU whose IRQ stack pointer exists but is
    NULL: its stack was never stored (or stored for another CPU)."""
    return ['Note: ' + stacks.unset_irq_stack(kind, cpu)
            for cpu in stacks.cpus.each_online_cpu()
            for kind in ('hardirq', 'softirq') if stacks.irq_stack(kind, cpu) == 0]


def examine_reset():
    """The report, as lines, of a guest whose CPU reset itself: QEMU
    (-action shutdown=pause) kept every CPU as it was, and gdb saw the
    stop as SIGQUIT. Nearly always a triple fault: an exception the CPU
    could not deliver, nor the double fault that followed."""
    global last
    out = ['==== the guest CPU reset itself (a triple fault, nearly always: an '
           'exception', '     the CPU could not deliver, then neither the '
           'double fault) ====']
    out += _kernel_said("The kernel's words before it:")
    for cpu in range(len(gdb.selected_inferior().threads())):
        ip, sp = stacks.regs_of(cpu, 'pc', 'sp')
        pc_name, sp_name = stacks.reg_names()
        if ip < frames.kernel_start():
            out.append('CPU %d: %s %#x, not yet in the kernel proper (the '
                       'BIOS, or the set-up before paging is on)' % (cpu, pc_name, ip))
            continue
        out.append('CPU %d was at %s %#x: %s' % (cpu, pc_name, ip, source_of(ip)))
        try:
            out.append('  the instruction: %s' % gdb.execute(
                'x/i %#x' % ip, to_string=True).split(':', 1)[1].strip())
        except (gdb.error, gdb.MemoryError, IndexError):
            pass
        line = source_line(ip)
        if line:
            out.append('  the line: %s' % line)
        try:
            out.append('  %s was %#x, %s' % (sp_name, sp, stacks.describe(sp, cpu)))
        except (gdb.error, gdb.MemoryError) as e:
            out.append('  %s was %#x (its stack cannot be told this early: %s)'
                       % (sp_name, sp, e))
    last = out
    return out


class KsDeath(stacks.Command):
    """Say again what the kernel died of (at a stop where it died).

Usage: ks-death

Labs stop where the kernel dies (oops_end or panic) and print this
report: the kernel's first BUG line and registers, the faulting EIP as
function and file:line, the stack esp was on (or just outside of), and
the frames walked by frame pointers across the stacks. Then bt, ks-where,
ks-bt and info registers show the rest."""

    NAME = 'ks-death'

    def invoke(self, arg, from_tty):
        if last is None:
            raise stacks.KstackError('no death seen in this session (a lab '
                                     'stops at oops_end or panic if its '
                                     'kernel dies)')
        gdb.write('\n'.join(last) + '\n')


KsDeath()
