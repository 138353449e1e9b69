# Loaded by every gdb on a lab's guest, by vm/session/ks (make lab, make
# grade) and book/transcripts.py (gdb -x): a lab never shows its banner for
# a stop it did not reach, and a kernel that dies is explained where it
# dies.
#
# ks-open-lab N (below) reaches lab N's stop with ks-lab-stop, runs the
# lab's at_stop commands and prints its banner (labs/N/lab.toml). On the
# way:
#
# - the kernel dies (oops_end or panic, gdb-scripts/kstack/death.py):
#   gdb stops there, on the dying CPU, and prints the post-mortem (also
#   written to the run folder as postmortem.txt, which the host's
#   Guest.explain() prints). A learner's lab (KS_INTERACTIVE) stays
#   there: ks-lab-stop fails, which ends ks-open-lab before its banner, and
#   the prompt is at the death (bt, ks-where, ks-bt, info registers).
#   A grader or a transcript quits with status 3;
# - the guest ends without dying that way (a triple fault, the guest's
#   own exit): gdb quits at once with status 3;
# - the host finds the guest hung (the lab's deadline, a grader's
#   timeout: it writes "hung" in the run folder and interrupts gdb):
#   every CPU's ks-where and ks-bt, a memory dump for make crash, then
#   quit with status 3;
# - a Ctrl-C before the lab's stop quits with status 3: the stop the
#   banner describes was not reached.
#
# vm/session/ks lab calls lab_reached() once ks-open-lab is done (gdb -ex): if the
# kernel died, the learner stays at the death; if no guest is attached
# (QEMU ended), quit with status 3; otherwise the lab's stop was reached:
# disarm, and leave the file lab-stopped in the run folder (KS_RUN) for
# the deadline watcher. Graders and transcripts never call lab_reached():
# the guard stays armed, so a guest that dies mid-grading is explained
# and ends gdb the same way.
import os
import re
import time

import gdb

from vm.session import facts
from kstack import death, frames, stacks

GUEST_ENDED = 3      # vm/session/ks reads this exit status
RUN = os.environ.get('KS_RUN', '')
armed = True
died = False


def run_file(name):
    return os.path.join(RUN, name) if RUN else None


def give_up(why):
    global armed
    armed = False
    # Straight to the terminal: inside ks-lab-stop, gdb captures its own
    # output, stderr too.
    os.write(2, ('\nks: %s; no lab stop to show.\n' % why).encode())
    gdb.execute('quit %d' % GUEST_ENDED)


def keep(name, lines):
    """LINES, kept in the run folder for the host (Guest.explain)."""
    if RUN:
        with open(run_file(name), 'w') as f:
            f.write('\n'.join(lines) + '\n')


class DeathPoint(gdb.Breakpoint):
    """A silent breakpoint on the first instruction of FUNCTION: there
    its arguments are still in the registers the caller loaded."""
    def __init__(self, function):
        super(DeathPoint, self).__init__('*' + function, internal=True)
        self.silent = True           # the post-mortem says what happened


DEATH = [DeathPoint(f) for f in death.DEATH_POINTS]


def on_death(examine=death.examine):
    """The kernel is dying: say of what, where gdb stopped it. A grader
    or a transcript then ends; a learner's lab stays at the death."""
    global armed, died
    armed = False
    died = True
    t0 = time.time()
    lines = examine()
    lines.append('(told in %.1f s, from the stop where it died)' % (time.time() - t0))
    if facts.exercise() and os.environ.get('KS_LAB') and not os.environ.get('KS_REPLAY'):
        # Who wrote what killed it is a question for a replay, run backwards.
        from vm.session import folders
        lines += ['Back in time from this death: %s' % folders.make_line(
                      'replay N=%s EXERCISE=1' % os.environ['KS_LAB']),
                  '  (it records one CPU: a death that needs two may not come there)']
    keep('postmortem.txt', lines)
    if not os.environ.get('KS_INTERACTIVE'):
        gdb.execute('quit %d' % GUEST_ENDED)
    for bp in DEATH:
        bp.enabled = False       # `continue` lets the kernel finish dying
    if RUN and not os.path.exists(run_file('lab-stopped')):
        open(run_file('lab-died'), 'w').close()
    lines += ['', 'ks: the kernel died. gdb is where it died, on CPU %d: bt, '
              'ks-where, ks-bt,' % stacks.selected_cpu(),
              '    info registers, ks-death (this report again); quit ends '
              'the guest.']
    LabStop.told = '\n' + '\n'.join(lines) + '\n'
    if not LabStop.running:      # ks-lab-stop's own output is captured
        gdb.write(LabStop.told)


def on_hang():
    """The host found the guest hung and interrupted gdb: where each CPU
    is, and a dump of the guest's memory."""
    global armed
    armed = False
    lines = ['==== the guest hung: where each CPU was when it was stopped ====']
    for cpu in range(len(gdb.selected_inferior().threads())):
        ip, cs = stacks.regs_of(cpu, 'pc', 'cs')
        if ip < frames.kernel_start() and not cs & 3:
            lines.append('  CPU %d: at %#x, not yet in the kernel proper (the '
                         'BIOS, or the set-up before paging is on)' % (cpu, ip))
            continue
        if cs & 3:
            task = death.current_of(cpu)
            lines.append('  CPU %d: in user mode at %#x, running %s'
                         % (cpu, ip, task))
            continue
        lines.append('  CPU %d at %s %#x: %s' % (cpu, stacks.reg_names()[0], ip,
                                                death.source_of(ip)))
        for command in ('ks-where %d' % cpu, 'ks-bt %d' % cpu):
            try:
                text = gdb.execute(command, to_string=True)
            except gdb.error as e:
                text = '(%s: %s)\n' % (command, e)
            lines += ['  ' + l for l in text.rstrip('\n').split('\n')]
    vmcore = run_file('vmcore')
    if vmcore:
        try:
            gdb.execute('monitor dump-guest-memory %s' % vmcore, to_string=True)
            stage = re.search(r'/stage-(\d+)/obj/', gdb.objfiles()[0].filename)
            lines.append('A dump of its memory: %s' % vmcore)
            if stage:
                lines.append('  make crash N=%s DUMP=%s opens it'
                             % (stage.group(1), vmcore))
        except gdb.error as e:
            lines.append('(no dump: %s)' % e)
    keep('postmortem.txt', lines)
    gdb.execute('quit %d' % GUEST_ENDED)


def on_exited(event):
    if armed:
        give_up('the guest ended before the lab\'s stop')


def on_stop(event):
    # A death is caught whenever it comes: before the lab's stop, during
    # a grader, or after the learner continued from the stop.
    if isinstance(event, gdb.BreakpointEvent) and any(
            bp in DEATH for bp in event.breakpoints):
        on_death()
    elif isinstance(event, gdb.SignalEvent) and event.stop_signal == 'SIGQUIT':
        # QEMU paused a guest that reset (-action shutdown=pause): its
        # CPUs are as they were at the triple fault, or at the reboot of
        # a kernel that finished dying.
        if died:
            gdb.write('ks: the kernel finished dying and reset the guest; '
                      'quit ends it.\n')
        else:
            on_death(death.examine_reset)
    elif not armed:
        return
    elif isinstance(event, gdb.SignalEvent) and event.stop_signal == 'SIGINT':
        if RUN and os.path.exists(run_file('hung')):
            on_hang()
        else:
            give_up('interrupted (Ctrl-C) before the lab\'s stop')


def lab_reached():
    global armed
    if died:
        return
    if not armed:
        return
    if gdb.selected_inferior().pid == 0:
        give_up('the guest is gone before the lab\'s stop')
    armed = False
    if RUN:
        open(run_file('lab-stopped'), 'w').close()


def on_gdb_exiting(event):
    # gdb's own quit detaches from the guest, which gdb reports as the
    # inferior's exit: that is the session ending, not the guest.
    # When the guest is gone, gdb's detach would only report the broken
    # connection (the commands have said why): drop it quietly.
    global armed
    armed = False
    if stacks.guest_gone():
        try:
            gdb.execute('disconnect', to_string=True)
        except gdb.error:
            pass


def at_stop(command, other_kernel, from_tty=False):
    """Run one of a lab's at_stop commands. A location this kernel lacks
    is an error, not a pending breakpoint (gdb would ask about one, or
    answer no for itself and go on). On another kernel of the lab's
    machine (KERNEL=) that is said and the lab goes on: lab 7's
    handle_stack_overflow() is VMAP_STACK's. On the lab's own kernel it
    fails the lab, as a stop that cannot be reached does."""
    if command.startswith('set '):          # lab 4's: pending, for the learner
        gdb.execute(command, from_tty)
        return
    pending = gdb.parameter('breakpoint pending')
    gdb.execute('set breakpoint pending off')
    try:
        gdb.execute(command, from_tty)
    except gdb.error as e:
        if not other_kernel:
            raise
        gdb.write('ks: not on this kernel: %s (%s)\n' % (command, e))
    finally:
        gdb.execute('set breakpoint pending %s' % {True: 'on', False: 'off'}.get(pending, 'auto'))


def release():
    """A line that says which kernel this is, as the kernel itself says
    (uname -r: the 6.1 point release of the tree it was built from, and
    the stage): the book was written against one point release, the
    learner's may be another."""
    try:
        return '(this kernel: Linux %s)\n' % gdb.parse_and_eval(
            'init_uts_ns.name.release').string()
    except (gdb.error, gdb.MemoryError, UnicodeDecodeError):
        return ''


class OpenLab(gdb.Command):
    """Open a lab: continue to its stop, run its at_stop commands, print
its banner (labs/N/lab.toml's stop, at_stop and banner; an exercise's
own with EXERCISE=1).

Usage: ks-open-lab [-quiet] N

-quiet: no banner (a grader opens its lab so). If the kernel dies or the
guest ends before the stop, the guard has said where and why, and the
banner is not printed."""

    def __init__(self):
        super().__init__('ks-open-lab', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        words = arg.split()
        quiet = '-quiet' in words
        n = [w for w in words if w != '-quiet']
        if len(n) != 1 or not n[0].isdigit():
            raise gdb.GdbError('usage: ks-open-lab [-quiet] N')
        # ks-lab-stop and the graders' gradelib.lab_number() read it.
        os.environ['KS_LAB'] = n[0]
        lab = facts.lab(int(n[0]))
        try:
            gdb.execute('ks-lab-stop %s' % lab['stop'], from_tty)
        except gdb.error:
            if died or gdb.selected_inferior().pid == 0 or stacks.guest_gone():
                return
            raise
        for command in lab['at_stop']:
            at_stop(command, 'own_kernel' in lab, from_tty)
        if not quiet:
            gdb.write('\n' + release() + lab['banner'])


REPLAY_BANNER = '''
==== A replay: this run was recorded, and gdb can run it backwards ====
QEMU recorded the run (when each interrupt came, what each clock read,
each byte typed on the console) and replays it, instruction for instruction,
as often as you like. Its record/replay (QEMU 7.2) takes one CPU: this
guest has one. Backwards, QEMU loads the snapshot before the target and
replays forwards to it: a step back takes a second or two.
Try:
  ks-who-wrote              back to the write that changed the end magic
  ks-who-wrote ADDR         back to the last write to the word at ADDR
  reverse-stepi             one instruction back (stepi: forwards)
  reverse-finish            back to the call of this function
  reverse-continue          back to the last breakpoint or watchpoint hit
'''


# Where a kernel ends the machine: a panic's restart (panic=-1), the
# workload's reboot -f, a halt. The guest's reset ends QEMU, and with it
# the replay: gdb would have no target left to go back on.
END_POINTS = ('emergency_restart', 'kernel_restart', 'kernel_halt', 'kernel_power_off')


class EndOfRecording(gdb.Breakpoint):
    """A stop at the last thing a replay can run: the kernel about to
    reset or halt the machine. Past it, QEMU ends, and reverse-stepi has
    nothing to step back on."""
    def __init__(self, function):
        super().__init__(function, internal=True)
        self.function = function
        self.silent = True

    def stop(self):
        gdb.write('\nks: the end of the recording: the kernel is in %s(), about to '
                  'reset the machine, which ends QEMU and the replay. Nothing comes '
                  'after it: reverse-stepi, reverse-finish, reverse-continue and '
                  'ks-who-wrote go back from here.\n' % self.function)
        return True


def stop_at_the_end():
    """EndOfRecording breakpoints, on the functions of END_POINTS this
    kernel has (once a gdb)."""
    if any(isinstance(bp, EndOfRecording) for bp in gdb.breakpoints()):
        return
    for function in END_POINTS:
        if gdb.lookup_global_symbol(function) is not None:
            EndOfRecording(function)


class Watched:
    """Name the watchpoint a replay stopped at. Running backwards,
    QEMU's stop reply names no watchpoint (gdbstub: the seek ends in a
    plain SIGTRAP), so gdb says only 'Program received signal SIGTRAP'.
    Each stop, the words of the learner's watchpoints are read and kept:
    at a SIGTRAP gdb cannot explain, the one watchpoint set, or those
    whose word changed since the last stop, were hit; where several are
    set and none changed (a write of the value the word held), it says
    it was one of them."""
    values = {}
    connected = False

    @staticmethod
    def points():
        return [bp for bp in gdb.breakpoints() if bp.is_valid() and bp.enabled
                and bp.visible and bp.type in (gdb.BP_HARDWARE_WATCHPOINT,
                                               gdb.BP_WATCHPOINT)]

    @staticmethod
    def read(bp):
        try:
            return int(gdb.parse_and_eval(bp.expression.replace('-location ', '', 1)))
        except (gdb.error, gdb.MemoryError, ValueError):
            return None

    @classmethod
    def on_created(cls, bp):
        if bp in cls.points():
            cls.values[bp.number] = cls.read(bp)

    @staticmethod
    def bare_sigtrap():
        """gdb stopped on a SIGTRAP it could not explain (a plain StopEvent
        to Python; 'info program' tells it from a step's stop)."""
        try:
            return 'stopped with signal SIGTRAP' in gdb.execute('info program',
                                                                  to_string=True)
        except gdb.error:
            return False

    @classmethod
    def on_stop(cls, event):
        points = cls.points()
        now = {bp.number: cls.read(bp) for bp in points}
        if (points and not isinstance(event, gdb.BreakpointEvent)
                and cls.bare_sigtrap()):
            changed = [bp for bp in points
                       if bp.number in cls.values and cls.values[bp.number] != now[bp.number]]
            hit = changed or (points if len(points) == 1 else [])
            if not hit:
                gdb.write('ks: one of watchpoints %s was hit (the word of none changed '
                          'since the last stop: a write of the value it held)\n'
                          % ', '.join(str(bp.number) for bp in points))
            for bp in hit:
                was = cls.values.get(bp.number)
                gdb.write('ks: watchpoint %d (%s) was hit: the write just before here '
                          '(backwards, QEMU stops after the write and names no '
                          'watchpoint); the word is %s%s\n' % (
                              bp.number, bp.expression,
                              '?' if now[bp.number] is None else '%#x' % now[bp.number],
                              ', as at the last stop' if was == now[bp.number] else
                              '' if was is None else ', %#x at the last stop' % was))
        cls.values = now


class OpenReplay(gdb.Command):
    """Open a lab's replay (make replay N=k): continue to the kernel's
death, where the recording ended with one (-died), else to the lab's
stop as ks-open-lab does; then say what a replay can do.

Usage: ks-open-replay [-died] N"""

    def __init__(self):
        super().__init__('ks-open-replay', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        words = arg.split()
        n = [w for w in words if w != '-died']
        if len(n) != 1 or not n[0].isdigit():
            raise gdb.GdbError('usage: ks-open-replay [-died] N')
        if not Watched.connected:
            gdb.events.stop.connect(Watched.on_stop)
            gdb.events.breakpoint_created.connect(Watched.on_created)
            Watched.connected = True
        if '-died' not in words:
            gdb.execute('ks-open-lab %s' % n[0], from_tty)
            stop_at_the_end()
            gdb.write(REPLAY_BANNER)
            return
        os.environ['KS_LAB'] = n[0]
        try:
            LabStop.running = True
            gdb.execute('continue', to_string=True)
        finally:
            LabStop.running = False
        if not died:
            give_up('the replay ended without the death its recording saw')
        stop_at_the_end()
        gdb.write(LabStop.told + REPLAY_BANNER)


class Stop(gdb.Breakpoint):
    """ks-lab-stop's breakpoint: it stops where its TEST (a gdb
    expression, evaluated on the CPU that hit it) holds. A test gdb cannot
    evaluate stops too, with the error kept: ks-lab-stop then fails and
    says why, where gdb's own condition would stop silently, showing the
    learner a case the lab did not ask for."""
    test = error = None

    def stop(self):
        if not self.test:
            return True
        try:
            return bool(gdb.parse_and_eval(self.test))
        except gdb.error as e:
            self.error = str(e)
            return True


class LabStop(gdb.Command):
    """Continue to a lab's stop, quietly.

Usage: ks-lab-stop [-boot] LOCATION [if CONDITION]

Continues the guest to the end of boot (the first exec of a user program,
begin_new_exec; with -boot, not: the stop may come during boot), then to
LOCATION where CONDITION holds, with breakpoints
of its own that print nothing, and shows the frame it stopped in. If the
kernel dies on the way, it fails: ks-open-lab ends there, before its banner,
and the guard has said why."""

    running = False
    told = ''                    # what on_death() had to say

    def __init__(self):
        super(LabStop, self).__init__('ks-lab-stop', gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        # Every lab steps the same way: step and next walk 2.6's do_IRQ
        # path (gdb-scripts/stepirq.py, whose hooks name it in gdb's own
        # Python namespace).
        gdb.execute('python import stepirq')
        if not arg.strip() and os.environ.get('KS_LAB'):
            arg = facts.lab(int(os.environ['KS_LAB']))['stop']      # the lab's own
        location, _, condition = arg.partition(' if ')
        location = location.strip()
        if location.startswith('-boot '):
            location = location[len('-boot '):]
        else:
            self.until('begin_new_exec', temporary=True)
        self.until(location.strip(), condition.strip() or None)
        gdb.execute('frame')

    def until(self, location, condition=None, temporary=False):
        # A lab module's function (lab 4's frames_write) has no symbol
        # until the module is loaded: the breakpoint waits, pending, and
        # gdb's "Function ... not defined." is not for the learner.
        was = [gdb.parameter('logging %s' % p) for p in ('file', 'redirect')]
        gdb.execute('set logging file /dev/null')
        gdb.execute('set logging redirect on')
        gdb.execute('set logging enabled on')
        try:
            bp = Stop(location, internal=True, temporary=temporary)
        finally:
            gdb.execute('set logging enabled off')
            gdb.execute('set logging file %s' % was[0])
            gdb.execute('set logging redirect %s' % ('on' if was[1] else 'off'))
        bp.silent = True             # no "Thread 1 hit Breakpoint -4, ..."
        bp.test = condition
        try:
            LabStop.running = True
            gdb.execute('continue', to_string=True)
        finally:
            LabStop.running = False
            error = bp.error
            if bp.is_valid():
                bp.delete()
        if error:
            raise gdb.GdbError('ks-lab-stop: its test (%s) cannot be evaluated at %s: '
                               '%s' % (condition, location, error))
        if died:
            gdb.write(LabStop.told)
        if died or gdb.selected_inferior().pid == 0:
            raise gdb.GdbError('ks-lab-stop: no lab stop (see above)')


LabStop()
OpenLab()
OpenReplay()
gdb.events.exited.connect(on_exited)
gdb.events.gdb_exiting.connect(on_gdb_exiting)
gdb.events.stop.connect(on_stop)
