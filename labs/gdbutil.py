# Reading the guest's state from gdb, for the labs' graders (labs/N/
# grade.py), which vm/session/ks runs in gdb batch mode against a fresh guest of
# the lab's stage, and for the checks' gdb-side probes (tests/gdb/).
# Checks and answers are labs/gradelib.py's.
#
# These readers stay apart from gdb-scripts/kstack on purpose: the graders
# and probes judge what the ks- commands say, so they read the guest with
# plain gdb expressions and the kernel's own lx- helpers, never with the
# code under test. (kstack has its own cpu, word, thread_size and
# irq_stack for its commands.)
import os
import re

import gdb

from kstack import stacks
from labs import gradelib, tasklib
from labs.gradelib import lab_number

LABS = os.path.dirname(os.path.abspath(__file__))


def _where():
    try:
        frame = gdb.selected_frame()
        sal = frame.find_sal()
        at = ' at %s:%d' % (re.sub(r'^.*?/src(/linux)?/', '', sal.symtab.filename),
                            sal.line) if sal.symtab else ''
        return ' (gdb stopped in %s%s, CPU %d)' % (frame.name(), at, cpu())
    except (gdb.error, RuntimeError):
        return ''


def run(command):
    return gdb.execute(command, to_string=True)


# While a gdb task's grader calls the learner's code (labs 0, 1 and 7):
# gdb's own unwinder gives frame #0 only (set backtrace limit), and
# kstack refuses its stacks and walks, which are the grader's answer.
HELD = 1
REFUSAL = ("kstack's stacks and walks (ks-bt, ks-where and the rest) are the "
           "grader's answer: while the grader calls your code, your code works them out")


def at_stop(solutions, name, args=(), **seen):
    """tasklib.at_stop, the learner's code called with gdb's unwinder held
    to HELD frames and kstack refusing (REFUSAL); a file that imports
    kstack is not called at all."""
    run('set backtrace limit %d' % HELD)
    stacks.REFUSED = REFUSAL
    try:
        seen = tasklib.at_stop([s for s in solutions if not imports_kstack(s)],
                               name, args, **seen)
    finally:
        stacks.REFUSED = None
        run('set backtrace limit unlimited')
    seen.update({s.label: (None, "your file imports kstack: " + REFUSAL)
                 for s in solutions if imports_kstack(s)})
    return seen


def source(solution):
    try:
        with open(solution.path) as f:
            return f.read()
    except OSError:
        return ''


def imports_kstack(solution):
    """Whether SOLUTION's file imports kstack (gdb-scripts/kstack)."""
    return re.search(r'^\s*(from\s+kstack\b|import\s+kstack\b)', source(solution), re.M) is not None


def asks_gdb_frames(solution):
    """Whether SOLUTION's file asks gdb for its frames (gdb.Frame.older(),
    gdb.newest_frame(), bt)."""
    return any(w in source(solution) for w in ('.older(', 'newest_frame(', "'bt", '"bt'))


gradelib.WHERE = _where
gradelib.READ = run


def stepi_off(addr, stepi=lambda: run('stepi'), tries=3):
    """stepi this CPU until its $pc leaves addr, at most tries times; how
    many it took, or None if $pc never left. Now and then a stepi on the
    two-vCPU guest ends without running an instruction, $pc still on
    addr: a learner would stepi again. stepi: how to run one (a caller
    that records each stop passes its own)."""
    thread = gdb.selected_thread()
    for n in range(1, tries + 1):
        stepi()
        if gdb.selected_thread() != thread:     # the other CPU stopped
            thread.switch()
        if int(gdb.selected_frame().pc()) != addr:
            return n
    return None


def fail_on_a_stop_again(walk):
    """From now on, end gdb (exit 3) if a stop is reported twice in a row:
    same CPU, same $pc, same function. Now and then a single step on the
    two-vCPU guest runs nothing (stepi_off says so): a stepi, or the step
    over a breakpoint that begins a continue from it, and gdb reports the
    stop it left again. A book walk (book/transcripts/WALK) that met one is
    thus made again on a fresh guest (book/transcripts.py does so when
    gdb fails) rather than kept with a stop that ran nothing. Only for
    walks whose stops all differ: a step into an inlined function stops
    at the same $pc without running the CPU, but in another function
    (the frame's name is part of a stop)."""
    stops = []

    def again(event):
        frame = gdb.selected_frame()
        stops.append((gdb.selected_thread().num, int(frame.pc()), frame.name()))
        if stops[-2:] == [stops[-1]] * 2:
            gdb.write('%s: the stop at %#x was reported again, no instruction run\n'
                      % (walk, stops[-1][1]), gdb.STDERR)
            gdb.execute('quit 3')
    gdb.events.stop.connect(again)


def val(expr):
    return int(gdb.parse_and_eval(expr)) & stacks.mask()


def start_lab():
    """Open the lab as make lab does, without its banner: its stop and
    its at_stop commands (an exercise's own, if it has them), as the
    learner gets them (labs/guard.py's ks-open-lab)."""
    return run('ks-open-lab -quiet %d' % lab_number())


def stopped_at(function):
    """Open the lab (start_lab) and check that its stop is FUNCTION's
    first instruction; the CPU, for the check's line."""
    start_lab()
    gradelib.expect(val('$pc'), val('&%s' % function), '$pc')
    return 'CPU %d' % cpu()


def stop_check(title, function):
    """Register a lab's first check: its stop is FUNCTION's first
    instruction (stopped_at())."""
    return gradelib.test(title)(lambda: stopped_at(function))


def thread_size_check(title, parent):
    """Register the check that the lab's kernel was built with its
    stage's THREAD_SIZE (vm/stages.toml)."""
    from vm.session import facts
    want = facts.lab(lab_number())['stage_facts']['thread_size']
    return gradelib.test(title, parent=parent)(lambda: gradelib.expect(
        thread_size(), want, 'THREAD_SIZE (sizeof(init_stack))'))


def frame_name():
    return gdb.selected_frame().name()


def cpu():
    return gdb.selected_thread().num - 1


def current(cpu_nr):
    return gdb.parse_and_eval('$lx_per_cpu("current_task", %d)'
                              % cpu_nr).dereference()


def area_of(command_output):
    """(base, top) from a ks-where output's 'area 0x..-0x..' line."""
    m = re.search(r'area (0x[0-9a-f]+)-(0x[0-9a-f]+)', command_output)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else (None, None)


MAX_HITS = 400
NONE = 'none in %d stops' % MAX_HITS   # what a grader got when continue_to failed


def continue_to(location, accept=lambda: True, max_hits=MAX_HITS, condition=None,
                cpu_nr=None):
    """Continue until LOCATION is hit where ACCEPT() holds; True if so,
    and the stops of other breakpoints are passed.
    CONDITION, a gdb expression, filters the hits in gdb itself (no stop
    reaches Python where it is false: many more hits cost little); CPU_NR
    keeps them to one CPU."""
    bp = gdb.Breakpoint(location, internal=True)
    if cpu_nr is not None:
        condition = '$_thread == %d' % (cpu_nr + 1) + (
            ' && (%s)' % condition if condition else '')
    if condition:
        bp.condition = condition
    try:
        for _ in range(max_hits):
            hits = bp.hit_count
            run('continue')
            # A stop elsewhere is not one of LOCATION's: another
            # breakpoint, or (now and then on the two-vCPU guest, as
            # stepi_off says) the stop gdb had just left, reported again.
            if bp.hit_count > hits and accept():
                return True
        return False
    finally:
        bp.delete()


def per_cpu(name, cpu_nr):
    """Per-CPU variable NAME on CPU_NR, as a number; None if the kernel
    lacks it."""
    try:
        return val('$lx_per_cpu("%s", %d)' % (name, cpu_nr))
    except gdb.error:
        return None


def interrupted_kernel_task_stack(cpu_nr=None):
    """The current interrupt (on CPU_NR, by default the selected CPU's)
    came from kernel code on the current task's stack: not from user
    mode, where 6.1 does not switch stacks, and not from a softirq on its
    own stack. Only such interrupts tell the stages apart."""
    c = cpu() if cpu_nr is None else cpu_nr
    try:                       # at common_interrupt: its argument
        regs = val('regs')
    except gdb.error:          # deeper: what __common_interrupt saved
        regs = val('$lx_per_cpu("__irq_regs", %d)' % c)
    if val('((struct pt_regs *)%d)->cs' % regs) & 3:
        return False
    stack = int(current(c)['stack'])
    return stack <= regs < stack + val('sizeof(init_stack)')


def ordinary_interrupt():
    """An interrupt of kernel code on an ordinary task's stack (not dd's,
    which labs 3 and 4 send deep on purpose)."""
    return (interrupted_kernel_task_stack() and
            current(cpu())['comm'].string() != 'dd')


def word(addr):
    """The 32-bit word at ADDR (an end magic, a saved esp)."""
    return val('*(unsigned long *)%d' % addr)


def thread_size():
    """THREAD_SIZE as this kernel was built: init_stack is declared as
    unsigned long[THREAD_SIZE / sizeof(long)], so its size in DWARF is it.
    (A grader compares it with vm/stages.toml's thread_size.)"""
    return val('sizeof(init_stack)')


def irq_stack(kind, cpu_nr):
    """The base of CPU_NR's 'hardirq' or 'softirq' stack; 0 if this kernel
    has no such stack (no per-CPU pointer to it)."""
    # Looked up first: $lx_per_cpu on a missing symbol prints a Python
    # traceback line before its error, and an exercise's kernel may
    # have no softirq stack.
    name = '%s_stack_ptr' % kind
    if gdb.lookup_global_symbol(name) is None and gdb.lookup_static_symbol(name) is None:
        return 0
    try:
        return val('$lx_per_cpu("%s", %d)' % (name, cpu_nr))
    except gdb.error:
        return 0


def on_current_stack(addr, cpu_nr):
    """ADDR lies on the stack of the task current on CPU_NR."""
    stack = int(current(cpu_nr)['stack'])
    return stack <= addr < stack + thread_size()


def stack_kind(addr, cpu_nr):
    """Which of CPU_NR's stacks ADDR lies on, from the kernel's data:
    'task' (the current task's), 'hardirq', 'softirq', or 'other'. (A
    prediction's observed value: labs/N/lab.toml's choices.)"""
    if on_current_stack(addr, cpu_nr):
        return 'task'
    for kind in ('hardirq', 'softirq'):
        base = irq_stack(kind, cpu_nr)
        if base and base <= addr <= base + thread_size():
            return kind
    return 'other'


def irq_regs(cpu_nr):
    """The pt_regs of the interrupt CPU_NR is handling, as
    __common_interrupt() set them (set_irq_regs()): the interrupted
    code's registers; 0 outside a device interrupt."""
    return val('$lx_per_cpu("__irq_regs", %d)' % cpu_nr)


def from_kernel_mode(regs):
    """The interrupt whose pt_regs are at REGS came from kernel mode (CPL
    0), so its regs->sp is the interrupted kernel esp (6.1's entry code
    completes the frame, FIXUP_FRAME in entry_32.S)."""
    return regs and not val('((struct pt_regs *)%d)->cs' % regs) & 3


def entry_cost(cpu_nr):
    """Bytes between the interrupted esp (regs->sp) and $sp now: what
    the interrupt has put on the stack it interrupted so far; None if
    it came from user mode."""
    regs = irq_regs(cpu_nr)
    if not from_kernel_mode(regs):
        return None
    return val('((struct pt_regs *)%d)->sp' % regs) - val('$sp')


def past_last_call(name):
    """The address just past function NAME's last instruction, a call
    that never returns: as a return address, it is the first byte of the
    next function."""
    block = gdb.block_for_pc(val('(unsigned long)%s' % name))
    while block.function is None:
        block = block.superblock
    last = gdb.selected_frame().architecture().disassemble(block.start, block.end - 1)[-1]
    gradelib.expect_true(last['addr'] + last['length'] == block.end and
                last['asm'].startswith('call'), "%s's last instruction" % name,
                'a call (a return address that names the next function)',
                '%s at %#x, the function ending at %#x' % (last['asm'], last['addr'], block.end))
    return block.end
