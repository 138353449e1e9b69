# Lab 1's task, the project's reference solution (make check grades it;
# the learner starts from my_xbt.py beside it, whose helpers are the same).
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


def cpu():
    """The selected CPU (gdb's thread N is CPU N-1)."""
    return gdb.selected_thread().num - 1


def stacks(cpu_nr):
    """The stacks CPU_NR can be on: {'task': (base, top), 'hardirq':
    (base, top), 'softirq': (base, top)}; the current task's stack, and
    the CPU's own IRQ stacks. The lowest word of each IRQ stack is at
    its base."""
    size = int(gdb.parse_and_eval('sizeof(init_stack)'))   # THREAD_SIZE
    task = gdb.parse_and_eval('$lx_per_cpu("current_task", %d)' % cpu_nr)
    found = {'task': int(task['stack'])}
    for kind in ('hardirq', 'softirq'):
        found[kind] = int(gdb.parse_and_eval('$lx_per_cpu("%s_stack_ptr", %d)'
                                             % (kind, cpu_nr)))
    return {kind: (base, base + size) for kind, base in found.items()}


def stack_of(addr, known):
    """Which of KNOWN's stacks (stacks()) holds ADDR: 'task', 'hardirq',
    'softirq', or None."""
    for kind, (base, top) in known.items():
        if base <= addr < top:
            return kind
    return None


def interrupted(regs):
    """What the interrupt entry whose pt_regs are at REGS saved of the
    code it interrupted: (ip, ebp, from_user_mode)."""
    r = gdb.parse_and_eval('*(struct pt_regs *)%d' % regs)
    return (int(r['ip']) & 0xffffffff, int(r['bp']) & 0xffffffff,
            bool(int(r['cs']) & 3))


def frames():
    """The selected CPU's frames, innermost first, as a list of (pc,
    function, stack) triples, stack being 'task', 'hardirq' or
    'softirq'. The grader calls this."""
    known = stacks(cpu())
    pc, sp, ebp = reg('pc'), reg('sp'), reg('ebp')
    here = stack_of(sp, known)
    found = [[pc, function_of(pc), here]]
    if at_first_instruction(pc):
        # push %ebp has not run: the return address is at [esp], and ebp
        # is still the caller's.
        ret = word(sp)
        found.append([ret, function_of(ret - 1), here])
    last = None                 # the previous frame's ebp, on this stack
    while ebp and len(found) < MAX_FRAMES:
        if ebp < KERNEL_START:
            # An interrupt's entry: its pt_regs, the top bit cleared.
            regs = ebp | 0x80000000
            if stack_of(regs, known) != here:
                break
            ip, ebp, user = interrupted(regs)
            if user or ip < KERNEL_START:
                break           # from user mode, or a new thread's start
            found.append([ip, function_of(ip), here])
            last = regs
            continue
        there = stack_of(ebp, known)
        if there is None:
            break
        if there == here:
            if last is not None and ebp <= last:
                break           # on one stack, the chain climbs
        else:
            # Off an IRQ stack, and only to where its lowest word points.
            if here not in ('hardirq', 'softirq'):
                break
            saved = word(known[here][0])
            if stack_of(saved, known) != there or ebp < saved:
                break
            here = there
        found[-1][2] = here     # this frame's function pushed ebp here
        ret = word(ebp + 4)
        if ret < KERNEL_START:
            break
        found.append([ret, function_of(ret - 1), here])
        last, ebp = ebp, word(ebp)
    return [tuple(f) for f in found]


class MyXbt(gdb.Command):
    """my-xbt: the selected CPU's backtrace across stacks (lab 1's task)."""

    def __init__(self):
        super(MyXbt, self).__init__('my-xbt', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        found = frames()
        for i, (pc, name, stack) in enumerate(found):
            if i and stack != found[i - 1][2]:
                gdb.write('   -- %s was reached from %s below\n'
                          % (found[i - 1][2], stack))
            gdb.write('#%-2d 0x%08x %-32s %s\n' % (i, pc, name or '??', stack))


MyXbt()
