# Where the kernel's stacks are, read from the running guest.
#
# A stack area is (kind, base, size, owner): kind is "task", "hardirq",
# "softirq", "entry", "double-fault", or on x86_64 (lab 7) one of the
# other IST stacks, "nmi", "debug" and "machine-check"; owner is the task
# for a task stack. Everything is read from kernel data (per-CPU
# pointers, task_struct.stack, the CPU entry area) and from DWARF (array
# sizes); no address is assumed. The i386 stages and lab 7's x86_64
# kernel differ in the size of a word, which the vmlinux says.
import os

import gdb

try:
    from linux import cpus, tasks   # the kernel's helpers (vmlinux-gdb.py)
except ImportError:
    cpus = tasks = None


class KstackError(gdb.GdbError):
    """An error the learner can act on, printed without a traceback."""


def guest_gone():
    """Why the guest is gone, in one line, or None while gdb is attached
    to a live one. The session writes qemu.exit in the run folder
    ($KS_RUN) when QEMU ends (vm/session/session.py); without one, a gdb
    with no thread left has lost its target."""
    run = os.environ.get('KS_RUN')
    try:
        if run:
            with open(os.path.join(run, 'qemu.exit')) as f:
                return 'the guest is gone: ' + f.read().strip()
    except OSError:
        pass
    if not gdb.selected_inferior().threads():
        return ('the guest is gone: gdb has no connection to QEMU '
                '(see qemu.log in the run folder)')
    return None


# The words of gdb's own errors when its connection to QEMU breaks.
LOST = ('Remote communication error', 'Remote connection closed',
        'Target disconnected', 'The program has no registers now',
        'The program is not being run')


def require_guest():
    gone = guest_gone()
    if gone:
        raise KstackError(gone)


def require_symbols():
    if cpus is None:
        raise KstackError('no kernel symbols: the kernel\'s lx- helpers '
                          '(vmlinux-gdb.py) are not loaded; start gdb on '
                          'the stage\'s vmlinux (make lab N=k does)')
    try:
        gdb.parse_and_eval('init_task')
    except gdb.error:
        raise KstackError('no kernel symbols: load the stage\'s vmlinux '
                          '(make lab N=k does)')


def require_percpu():
    # Until setup_per_cpu_areas() has run, every CPU's offset is 0 and
    # per-CPU reads see the boot-time template, not a CPU's own copy.
    if not int(gdb.parse_and_eval('__per_cpu_offset[0]')):
        raise KstackError('per-CPU areas are not set up yet (early boot, '
                          'before setup_per_cpu_areas()); continue past '
                          'start_kernel, e.g. break __handle_irq')


def unset_irq_stack(kind, cpu):
    """Why CPU's KIND stack pointer is NULL, in one line: early boot
    only while the CPU is not online yet (its stacks are allocated on
    the CPU that brings it up); an online CPU's NULL pointer means its
    stack was never stored there."""
    if cpu in set(cpus.each_online_cpu()):
        return ("CPU %d is online, but its %s_stack_ptr is NULL: that "
                "CPU's stack was never stored there" % (cpu, kind))
    return ('CPU %d is not online yet (early boot): its %s stack is not '
            'allocated' % (cpu, kind))


def checked(action, *args):
    """Run ACTION(*ARGS) once there is a kernel to look at, turning
    unreadable memory into an explanation, not a traceback, and a guest
    that is gone into one line that says so and why."""
    require_symbols()
    require_guest()
    try:
        require_percpu()
        return action(*args)
    except KstackError:
        raise
    except gdb.MemoryError as e:
        require_guest()
        raise KstackError('cannot read the guest\'s memory (%s): the '
                          'kernel\'s addresses are not mapped yet (early '
                          'boot, paging off?) or the pointer is stale' % e)
    except gdb.error as e:
        if any(w in str(e) for w in LOST):
            raise KstackError(guest_gone() or 'the guest is gone: %s' % e)
        raise


# The project's gdb commands and convenience functions, by name, as each
# registers itself: the workbook's reference (book/reference.sh) and
# check 11 (the README's table) are made from these lists.
COMMANDS = []
FUNCTIONS = []


def registered(names, name):
    """NAME, added to NAMES (COMMANDS or FUNCTIONS) once."""
    if name not in names:
        names.append(name)
    return name


class Command(gdb.Command):
    """Base of the ks- commands: a subclass gives its NAME (and KIND, its
    class in gdb's help, if not stack) and implements run(arg), which runs
    through checked()."""
    KIND = gdb.COMMAND_STACK

    def __init__(self):
        super(Command, self).__init__(registered(COMMANDS, self.NAME), self.KIND)

    def invoke(self, arg, from_tty):
        checked(self.run, arg.strip())


_WORD = []


def word_bytes():
    """The kernel's word: 4 bytes on i386, 8 on x86_64 (sizeof(long))."""
    if not _WORD:
        _WORD.append(gdb.lookup_type('unsigned long').sizeof)
    return _WORD[0]


def is_64bit():
    return word_bytes() == 8


def mask():
    return (1 << 8 * word_bytes()) - 1


def word(addr):
    """The kernel's word (unsigned long) at ADDR in the guest."""
    return int(gdb.parse_and_eval('*(unsigned long *)%d' % addr)) & mask()


def reg_names():
    """How the kernel's own reports name the program counter and the stack
    pointer: EIP and esp on i386, RIP and rsp on x86_64."""
    return ('RIP', 'rsp') if is_64bit() else ('EIP', 'esp')


def arg(n):
    """The Nth argument (1, 2...) of a function stopped at its first
    instruction: i386's kernel is built with -mregparm=3 (eax, edx, ecx),
    x86_64's calling convention passes rdi, rsi, rdx."""
    return gdb.parse_and_eval('$' + (('rdi', 'rsi', 'rdx') if is_64bit()
                                     else ('eax', 'edx', 'ecx'))[n - 1])


def readable(addr):
    """The word at ADDR can be read: mapped memory, not a guard page."""
    try:
        word(addr)
        return True
    except gdb.MemoryError:
        return False


def symbol(pc):
    """'function+offset' for a code address, or its hex value."""
    # With "set trace-commands on" gdb would echo the command into the
    # captured text: turn tracing off around it.
    trace = gdb.parameter('trace-commands')
    if trace:
        gdb.execute('set trace-commands off', to_string=True)
    try:
        text = gdb.execute('info symbol %#x' % (pc & mask()),
                           to_string=True)
    finally:
        if trace:
            gdb.execute('set trace-commands on', to_string=True)
    if text.startswith('No symbol'):
        return '%#x' % pc
    name = text.split(' in section ')[0].strip()
    return name.replace(' + ', '+')


def caller(ret):
    """'function+offset' for a return address: looked up at ret - 1, since
    a call that never returns can be the last instruction of a function,
    its return address the first of the next one."""
    if not ret:
        return '0x0'
    name = symbol(ret - 1)
    if '+' in name:
        fn, off = name.rsplit('+', 1)
        return '%s+%d' % (fn, int(off, 0) + 1)
    return name + '+1' if not name.startswith('0x') else '%#x' % ret


def warn_line():
    """How far above a stack's base the interrupt-entry check fires:
    check_stack_overflow() in arch/x86/kernel/irq_32.c warns when
    sp & (THREAD_SIZE-1) < sizeof(struct thread_info) + STACK_WARN, the
    room 2.6 kept for thread_info at the bottom of the stack."""
    return int(gdb.parse_and_eval('sizeof(struct thread_info)')) + stack_warn()


def thread_size():
    # init_stack is declared as unsigned long[THREAD_SIZE / sizeof(long)],
    # so its size in DWARF is the THREAD_SIZE this kernel was built with.
    return int(gdb.parse_and_eval('sizeof(init_stack)'))


def stack_warn():
    # arch/x86/include/asm/thread_info.h: STACK_WARN (THREAD_SIZE/8); a
    # macro, so not in DWARF.
    return thread_size() // 8


def nr_cpus():
    return int(gdb.parse_and_eval('nr_cpu_ids'))


def _per_cpu_ptr(name, cpu):
    try:
        var = gdb.parse_and_eval('&' + name)
    except gdb.error:
        return None          # this stage has no such variable
    return int(cpus.per_cpu(var, cpu))


def current_task(cpu):
    # The kernel's $lx_current() only knows x86-64; on i386 read the
    # per-CPU current_task.
    var = gdb.parse_and_eval('&current_task')
    return cpus.per_cpu(var, cpu).dereference()


def irq_stack_size():
    """The bytes of an IRQ stack: struct irq_stack is IRQ_STACK_SIZE, which
    i386 makes THREAD_SIZE and x86_64 16K."""
    try:
        return int(gdb.parse_and_eval('sizeof(struct irq_stack)'))
    except gdb.error:
        return thread_size()


def saved_sp_at(base):
    """Where the switch onto the IRQ stack at BASE saved the stack pointer
    it came from: i386 in the stack's lowest word (its bottom), x86_64
    in its highest (the word hardirq_stack_ptr points at: "movq %rsp,
    (%[tos])", arch/x86/include/asm/irq_stack.h)."""
    return base + irq_stack_size() - 8 if is_64bit() else base


# While a task's grader calls the learner's code (labs/gdbutil.py's
# at_stop), the stacks kstack knows, and so every walk over them (ks-bt,
# ks-where, ks-irqstacks), are the grader's answer: asked for, they
# raise this.
REFUSED = None


def refuse():
    if REFUSED:
        raise KstackError(REFUSED)


def irq_stack(kind, cpu):
    """Base of CPU's hardirq or softirq stack; None if the stage has none,
    0 if it is not allocated yet (early boot). i386's pointer is the
    base; x86_64's is the top, less a word (irq_64.c: "va +
    IRQ_STACK_SIZE - 8"), and x86_64 has no softirq stack: softirqs run
    on the hardirq stack."""
    refuse()
    ptr = _per_cpu_ptr(kind + '_stack_ptr', cpu)
    if ptr and is_64bit():
        return ptr + 8 - irq_stack_size()
    return ptr


def regs_of(cpu, *names):
    """Registers of CPU (gdb thread cpu + 1 under QEMU's gdbstub), e.g.
    regs_of(0, 'sp', 'pc'), as unsigned words ('bp' is ebp or rbp)."""
    selected = gdb.selected_thread()
    for thread in gdb.selected_inferior().threads():
        if thread.num == cpu + 1:
            break
    else:
        raise KstackError('no gdb thread for CPU %d' % cpu)
    try:
        thread.switch()      # unlike the "thread" command, prints nothing
        names = [('rbp' if is_64bit() else 'ebp') if n == 'bp' else n
                 for n in names]
        return [int(gdb.parse_and_eval('$' + n)) & mask() for n in names]
    finally:
        if selected is not None:
            selected.switch()


def sp_of(cpu):
    """$sp of CPU."""
    return regs_of(cpu, 'sp')[0]


def selected_cpu():
    return gdb.selected_thread().num - 1


class Area:
    def __init__(self, kind, base, size, owner=None, cpu=None):
        self.kind, self.base, self.size = kind, base, size
        self.owner, self.cpu = owner, cpu

    @property
    def top(self):
        return self.base + self.size

    def holds(self, addr):
        # An empty stack has sp == top: that still belongs to the area.
        return self.base <= addr <= self.top

    def name(self):
        if self.kind == 'task':
            return 'the task stack of pid %d (%s)' % (
                int(self.owner['pid']), self.owner['comm'].string())
        return "CPU %d's %s stack" % (self.cpu, self.kind)

    def short(self):
        """A name that fits a table column."""
        if self.kind == 'task':
            return 'task %d %s' % (int(self.owner['pid']),
                                   self.owner['comm'].string())
        return '%s cpu%d' % (self.kind, self.cpu)


# x86_64's IST stacks (struct cea_exception_stacks): the stacks the CPU
# switches to for these exceptions whatever the stack it was on, each
# between guard pages.
IST = (('DF', 'double-fault'), ('NMI', 'nmi'), ('DB', 'debug'),
       ('MCE', 'machine-check'))


def entry_areas(cpu):
    """CPU's stacks in its CPU entry area (arch/x86/include/asm/
    cpu_entry_area.h): the entry stack (where the CPU lands from user
    mode, sp0 of its TSS: x86_64's entry trampoline stack), and the
    double-fault stack: on i386 its own TSS, reached by a task gate; on
    x86_64 the first of the IST stacks, with the NMI, debug and
    machine-check ones."""
    refuse()
    # i386 keeps a per-CPU pointer to the area; x86_64 only to its IST
    # stacks, a member of the area (cea->estacks).
    cea = _per_cpu_ptr('cpu_entry_area', cpu)
    ist = _per_cpu_ptr('cea_exception_stacks', cpu) if is_64bit() else None
    if ist:
        cea = ist - int(gdb.parse_and_eval(
            '(unsigned long)&((struct cpu_entry_area *)0)->estacks'))
    if not cea:
        return []
    cea = gdb.Value(cea).cast(
        gdb.lookup_type('struct cpu_entry_area').pointer())
    entry = cea['entry_stack_page']['stack']
    found = [Area('entry', int(entry.address), entry.type.sizeof, cpu=cpu)]
    if not is_64bit():
        dfs = cea['doublefault_stack']['stack']
        return found + [Area('double-fault', int(dfs.address),
                             dfs.type.sizeof, cpu=cpu)]
    if not ist:
        return found
    ist = gdb.Value(ist).cast(
        gdb.lookup_type('struct cea_exception_stacks').pointer()).dereference()
    for member, kind in IST:
        stack = ist[member + '_stack']
        found.append(Area(kind, int(stack.address), stack.type.sizeof, cpu=cpu))
    return found


def each_area(cpu):
    """The stack areas to look in for CPU, cheapest first: its IRQ stacks,
    its entry and double-fault stacks, its current task's stack, then every
    other task's (a walk of the task list, many reads over the gdbstub)."""
    refuse()
    ts = thread_size()
    for kind in ('hardirq', 'softirq'):
        base = irq_stack(kind, cpu)
        if base:
            yield Area(kind, base, irq_stack_size(), cpu=cpu)
    for area in entry_areas(cpu):
        yield area
    cur = current_task(cpu)
    yield Area('task', int(cur['stack']), ts, owner=cur, cpu=cpu)
    for t in tasks.task_lists():
        if int(t['stack']) and int(t['stack']) != int(cur['stack']):
            yield Area('task', int(t['stack']), ts, owner=t)


def areas(cpu):
    """All of each_area(CPU), as a list to look in more than once."""
    return list(each_area(cpu))


def find_area(addr, cpu, known=None):
    """The area holding ADDR, looking at CPU's stacks and every task's
    (or at KNOWN, a list from areas(), to read the task list once). The
    task list is read only if ADDR is on none of CPU's own stacks."""
    for area in known or each_area(cpu):
        if area.holds(addr):
            return area
    return None


def task_by_pid(arg):
    """The task whose pid a command argument names."""
    try:
        pid = int(arg)
    except ValueError:
        raise KstackError('not a pid: %s' % arg)
    for t in tasks.task_lists():
        if int(t['pid']) == pid:
            return t
    raise KstackError('no task with pid %d (lx-ps lists them)' % pid)


def parse_cpu(arg):
    """A CPU number from a command argument; default: the selected one."""
    try:
        cpu = int(arg, 0) if arg else selected_cpu()
    except ValueError:
        raise KstackError('not a CPU number: %s' % arg)
    if not 0 <= cpu < nr_cpus():
        raise KstackError('no CPU %d (the guest has %d)' % (cpu, nr_cpus()))
    return cpu


def cpu_and_sp(arg):
    """(CPU, its $sp), the CPU a command's argument names (parse_cpu)."""
    cpu = parse_cpu(arg)
    return cpu, sp_of(cpu)


# How far outside a stack an address may lie and still be named after it
# ("24 bytes above the top of CPU 0's hardirq stack"): a frame or two,
# the distance a wrong esp travels before something faults.
NEAR = 1024


def describe(addr, cpu):
    """Which stack ADDR (an esp) lies on, said for a learner: the area
    with its distance from each end; or, when ADDR is on no stack, the
    stack it is just outside of (a return past the top, a descent under
    the bottom), looking at every CPU's own stacks and CPU's task."""
    known = areas(cpu)
    cur = current_task(cpu)
    base, ts = int(cur['stack']), thread_size()
    area = find_area(addr, cpu, known)
    if base - ts <= addr < base and (area is None or area.kind == 'task'
                                      and area.base != base):
        return ('%d bytes BELOW the end of %s: that stack overflowed into '
                'the memory under it%s' % (
                    base - addr, Area('task', base, ts, owner=cur).name(),
                    ' (%s)' % area.name() if area else ''))
    if area is not None:
        return 'on %s (%#x-%#x): %d bytes below its top, %d above its bottom' % (
            area.name(), area.base, area.top, area.top - addr, addr - area.base)
    own = [a for c in range(nr_cpus()) for a in (known if c == cpu else
                                                   areas_of_cpu(c))]
    for a in own:
        if a.top < addr <= a.top + NEAR:
            return ('%d bytes ABOVE the top of %s (%#x-%#x): esp went past '
                    'the stack\'s empty end, as when code returns or pops more '
                    'than it pushed there' % (addr - a.top, a.name(), a.base, a.top))
        if a.base - NEAR <= addr < a.base:
            return ('%d bytes BELOW the bottom of %s (%#x-%#x): the stack '
                    'overflowed, or esp was set to its bottom instead of its '
                    'top' % (a.base - addr, a.name(), a.base, a.top))
    return 'on no stack the ks- commands know'


def obj_folder():
    """The folder of the vmlinux gdb reads (a kernel's O= folder), or
    None before gdb has one."""
    vmlinux = gdb.current_progspace().filename
    return os.path.dirname(vmlinux) if vmlinux else None


def stopped_on(kind, who):
    """(cpu, sp, areas, area) of the selected CPU, whose $sp must be on
    its KIND stack (a KstackError naming WHO otherwise)."""
    cpu = selected_cpu()
    sp = sp_of(cpu)
    known = areas(cpu)
    area = find_area(sp, cpu, known)
    if area is None or area.kind != kind:
        raise KstackError('%s: CPU %d is not on its %s stack' % (who, cpu, kind))
    return cpu, sp, known, area


def areas_of_cpu(cpu):
    """CPU's own stacks (IRQ, entry, double-fault, its current task's),
    without the walk of every task."""
    ts = thread_size()
    found = [Area(kind, irq_stack(kind, cpu), irq_stack_size(), cpu=cpu)
             for kind in ('hardirq', 'softirq') if irq_stack(kind, cpu)]
    cur = current_task(cpu)
    return found + entry_areas(cpu) + [
        Area('task', int(cur['stack']), ts, owner=cur, cpu=cpu)]
