"""One guest, and gdb attached to it: the session layer.

Everything that boots a stage goes through Guest: `make lab`, `make grade`,
`make boot`, the crash dump, the book's transcripts, the experiments and
the checks.

    with Guest(stage, script='/labs/3/guest.sh', halted=True) as guest:
        run = guest.gdb(['-x', 'labs/3/grade.py'])
        run.output, run.rc, run.records     # records: vm/session/results.py

A guest has a run folder of its own, build/run/STAGE-PID-N, holding:
  serial.log       the guest's console (the kernel's own words)
  qemu.cmd         QEMU's command line, quoted for a shell (SHOW=1 prints it)
  qemu.log         QEMU's messages; qemu-debug.log: CPU resets (triple faults)
  gdb.port, qemu.pid, monitor.sock
  qemu.exit        once QEMU has ended: one line, how and why (end_cause)
  gdb-N.jsonl      what the gdb-side code of the N-th gdb run emitted
So two guests never collide, and a failure leaves its evidence.

A guest never outlives its session: leaving the `with` block stops QEMU,
and QEMU is started with a parent-death signal, so even a session killed
outright (SIGKILL, no cleanup runs) takes its QEMU with it.

Settings from the environment: ACCEL (tcg; kvm needs /dev/kvm), CPUS (2),
MEM (MiB, 128), KS_INITRAMFS (another guest image), SHOW (print QEMU's
command line), KS_KEEP_RUNS (run folders kept, 30).
"""
import ctypes
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

from vm.session import kernelwords
from vm.session import results
from vm.session import facts
from vm.session.facts import TOP
BUILD = os.path.join(TOP, os.environ.get('BUILD') or 'build')
READY_MARKER = 'KSTACK-READY'
DONE_MARKER = 'KSTACK-DONE'     # vm/guest/init's last line: status=N
# Seconds a gdb run, a lab's first stop or a grader may take (LAB_TIMEOUT
# and KS_GRADE_TIMEOUT change the last two).
TIMEOUT = 120
PROG = (os.path.splitext(os.path.basename(sys.argv[0]))[0] if sys.argv and sys.argv[0]
        else 'ks')      # ks, run as python3 -m vm.session.ks


def say(message):
    print('[%s] %s' % (PROG, message), file=sys.stderr, flush=True)


def stage_dir(k):
    """A stage's folder; "eN" is lab N's exercise (as in vm/host/lib.sh),
    in $EXERCISES (read at each call: a check points it elsewhere)."""
    k = str(k)
    if k.startswith('e'):
        return os.path.join(os.environ.get('EXERCISES') or
                            os.path.join(BUILD, 'exercises'), k[1:])
    return os.path.join(BUILD, 'stage-%s' % k)


def stage_src(k):
    """A kernel's tree, its folder's src/ (as in vm/host/lib.sh); a
    kernel beside the series is built from its row's tree."""
    k = str(k)
    return os.path.join(stage_dir(k if k.startswith('e') else facts.stage(k)['tree']), 'src')


def arch(k):
    """The name of the machine kernel K runs on (vm/stages.toml)."""
    return facts.machine(k)['name']


def initramfs(k):
    """The guest image kernel K boots: its machine's."""
    return os.path.join(BUILD, facts.machine(k)['initramfs'])


def stage_obj(k):
    return os.path.join(stage_dir(k), 'obj')


GUARD = os.path.join(TOP, 'labs', 'guard.py')


def lab_scripts(lab, script=None):
    """gdb's arguments that open LAB (facts.lab) as make lab does: the
    guard first (labs/guard.py: a death is caught wherever it comes),
    then SCRIPT, or else the guard's ks-open-lab: the lab's stop, its
    at_stop commands and its banner (labs/N/lab.toml). A grader is its
    own SCRIPT, and opens the lab itself (gdbutil.start_lab)."""
    return ['-x', GUARD] + (['-x', script] if script else
                            ['-ex', 'ks-open-lab %d' % lab['number']])


def elf_damaged(path):
    """Why the ELF file PATH cannot be whole (missing, not ELF, cut short
    before its section headers, where the symbols are found), or None.
    Reads its header: cheap enough for every boot."""
    import struct
    try:
        with open(path, 'rb') as f:
            head = f.read(64)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        return 'cannot be read (%s)' % e.strerror
    if len(head) < 52 or head[:4] != b'\x7fELF':
        return 'is not an ELF file (%d bytes)' % size
    if head[4] == 2:                     # ELFCLASS64
        shoff, = struct.unpack_from('<Q', head, 40)
        shentsize, shnum = struct.unpack_from('<HH', head, 58)
    else:
        shoff, = struct.unpack_from('<I', head, 32)
        shentsize, shnum = struct.unpack_from('<HH', head, 46)
    if shoff + shentsize * shnum > size:
        return 'is cut short: %d bytes, its section headers end at %d' % (
            size, shoff + shentsize * shnum)
    return None


def initrd(stage, initramfs):
    """STAGE's initramfs, followed by the stage's lab modules (a second
    cpio archive: the kernel unpacks concatenated archives in order).
    The pair is joined once per stage and shared by its runs, renamed
    into place so that no run sees half of it."""
    mods = os.path.join(stage_dir(stage), 'modules.cpio')
    if os.environ.get('KS_INITRAMFS') or not os.path.isfile(mods):
        return initramfs
    joined = os.path.join(stage_dir(stage), 'initrd.cpio')
    key = ' '.join('%d %d' % (os.stat(p).st_size, os.stat(p).st_mtime_ns)
                   for p in (initramfs, mods))
    try:
        with open(joined + '.key') as f:
            fresh = f.read().strip() == key and os.path.isfile(joined)
    except OSError:
        fresh = False
    if not fresh:
        tmp = '%s.%d' % (joined, os.getpid())
        with open(tmp, 'wb') as out:
            for p in (initramfs, mods):
                with open(p, 'rb') as f:
                    out.write(f.read())
        os.replace(tmp, joined)
        with open(joined + '.key', 'w') as f:
            f.write(key + '\n')
    return joined


class GuestError(Exception):
    """The guest failed; the message says why, in the kernel's words
    where it left any (Guest.explain)."""


def _die_with_parent():
    # Runs in the child between fork and exec: SIGKILL when the session
    # that started it dies, whatever kills it (a QEMU whose main loop is
    # stuck never acts on a TERM).
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _port_listening(port):
    """Is something listening on 127.0.0.1:PORT? Read from /proc/net/tcp:
    connecting to QEMU's gdbstub would stop the guest."""
    want = '0100007F:%04X' % port
    with open('/proc/net/tcp') as f:
        return any(len(w) > 3 and w[1] == want and w[3] == '0A'
                   for w in (line.split() for line in f))


class GdbRun:
    """What one gdb run left: its exit status (124 if it was stopped at
    its timeout), its output, and the records its gdb-side code emitted."""
    def __init__(self, rc, output, records):
        self.rc, self.output, self.records = rc, output, records

    @property
    def timed_out(self):
        return self.rc == 124


class Guest:
    runs = 0                     # guests started by this process so far

    def __init__(self, stage, script='', halted=False, append='',
                 keep_dead=False, rr=None):
        """SCRIPT: what the guest's /init runs (a path in the guest, or
        "exit"); empty, a shell. HALTED: the CPUs wait for gdb. APPEND:
        more name=value words for the kernel's command line, which /init
        (and so SCRIPT) gets as environment variables. KEEP_DEAD: a guest
        that resets (a triple fault, a panic's reboot) is paused as it
        was, for gdb (labs/guard.py) to read, instead of ending QEMU. RR:
        ('record', FOLDER) records the run in FOLDER (vm/session/replay.py),
        ('replay', FOLDER) replays it; either on one CPU, under TCG."""
        self.stage, self.script, self.halted = stage, script, halted
        self.keep_dead = keep_dead
        self.append = append
        self.accel = os.environ.get('ACCEL') or 'tcg'
        self.cpus = int(os.environ.get('CPUS') or 2)
        self.rr = rr
        if rr:
            # QEMU 7.2 records one CPU only ("Record/replay feature is not
            # supported for 'smp'"), and only what TCG executes.
            self.cpus = 1
            if self.accel != 'tcg':
                raise GuestError('ACCEL=%s: QEMU records and replays only under '
                                 'TCG; leave ACCEL unset' % self.accel)
        self.mem = int(os.environ.get('MEM') or 128)
        # The machine's record: QEMU's program, the image, its devices.
        self.machine = facts.machine(stage)
        self.arch = self.machine['name']
        self.initramfs = os.environ.get('KS_INITRAMFS') or initramfs(stage)
        self.qemu = None
        self.run = self.port = None
        self.gdb_runs = 0
        self.gdb_proc = None         # the gdb attached now, if any

    # -- QEMU's command line, one concern per step --------------------

    def qemu_args(self, console=False):
        obj = stage_obj(self.stage)
        args = [self.machine['qemu'], '-M', self.machine['qemu_machine'], '-accel', self.accel]
        # One CPU per socket: without ACPI the kernel finds CPUs in
        # SeaBIOS's MP table, which lists only the first CPU of each
        # socket; QEMU's default (all cores in one socket) hides CPU 1.
        args += ['-smp', '%d,sockets=%d' % (self.cpus, self.cpus),
                 '-m', str(self.mem)]
        # No network, no screen; a panic's reboot ends QEMU instead, or
        # pauses it, CPUs as they were, when gdb is to read them.
        args += ['-nic', 'none', '-display', 'none', '-no-reboot']
        if self.keep_dead:
            args += ['-action', 'shutdown=pause']
        args += ['-kernel', os.path.join(obj, self.machine['image']),
                 '-initrd', self._initrd(), '-append', self._cmdline()]
        # The guest's qemu-exit program ends the run through this port,
        # with a status QEMU turns into its own exit code.
        args += ['-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04']
        # The machine's own (x86_64's vmcoreinfo, for drgn).
        for device in self.machine['devices']:
            args += ['-device', device]
        # The monitor (for dump-guest-memory), the pid, and a log of CPU
        # resets: a triple fault ends QEMU without a word from the kernel.
        args += ['-monitor', 'unix:%s,server=on,wait=off' % self.path('monitor.sock'),
                 '-pidfile', self.path('qemu.pid'),
                 '-D', self.path('qemu-debug.log'), '-d', 'cpu_reset,guest_errors']
        if console:
            # mux=on gives the Ctrl-A escapes (Ctrl-A X quits); signal=off
            # sends Ctrl-C to the guest's shell instead of ending QEMU.
            args += ['-chardev', 'stdio,id=con,mux=on,signal=off,logfile=%s'
                     % self.path('serial.log'), '-serial', 'chardev:con']
        else:
            args += ['-serial', 'file:%s' % self.path('serial.log')]
        if self.rr:
            # icount makes the run a function of its inputs, which the log
            # (replay.bin) keeps; the snapshots (init at the start, more
            # as a replay goes forwards) go to a qcow2 drive no device uses.
            # shift=7 (128 ns of guest time per instruction): with
            # shift=auto the log grew by 11 MB per guest second and a
            # replay ran 20 times slower than its recording; with 7, by
            # 0.25 MB and 5 times. The kvmvapic device is off: in
            # QEMU 7.2, loading a snapshot (each reverse step does) with
            # it deadlocks.
            mode, folder = self.rr
            args += ['-icount', 'shift=7,rr=%s,rrfile=%s,rrsnapshot=init'
                     % (mode, os.path.join(folder, 'replay.bin')),
                     '-drive', 'file=%s,if=none,id=rr' % os.path.join(folder, 'snapshots.qcow2'),
                     '-global', 'apic-common.vapic=off']
        if self.halted:
            args += ['-S']
        args += ['-gdb', 'tcp:127.0.0.1:%d' % self.port]
        return args

    def _cmdline(self):
        words = ['console=ttyS0', 'panic=-1'] + self.machine['cmdline']
        if self.script:
            words.append('ks_run=%s' % self.script)
        words += self.append.split()
        return ' '.join(words)

    def _initrd(self):
        return initrd(self.stage, self.initramfs)

    def path(self, name):
        return os.path.join(self.run, name)

    def serial(self):
        """The guest's console so far, carriage returns dropped."""
        try:
            with open(self.path('serial.log'), 'rb') as f:
                return f.read().decode(errors='replace').replace('\r', '')
        except OSError:
            return ''

    # -- starting and stopping ----------------------------------------

    def _prepare(self):
        bz = os.path.join(stage_obj(self.stage), self.machine['image'])
        if not os.path.isfile(bz):
            raise GuestError("stage %s has no kernel: run 'make kernel N=%s'"
                             % (self.stage, self.stage))
        damaged = elf_damaged(os.path.join(stage_obj(self.stage), 'vmlinux'))
        if damaged:
            raise GuestError("stage %s's vmlinux %s: gdb could not read its "
                             "symbols; run 'make kernel N=%s' (it rebuilds a "
                             "damaged kernel)" % (self.stage, damaged, self.stage))
        if not os.path.isfile(self.initramfs):
            raise GuestError("no initramfs: run 'make initramfs'")
        if not any(os.access(os.path.join(d, self.machine['qemu']), os.X_OK)
                   for d in os.environ['PATH'].split(':')):
            raise GuestError("%s not found: run 'make deps'" % self.machine['qemu'])
        if self.accel == 'kvm' and not os.access('/dev/kvm', os.W_OK):
            raise GuestError('ACCEL=kvm, but this machine has no usable '
                             '/dev/kvm; leave ACCEL unset (TCG)')
        if self.accel == 'kvm':
            say('ACCEL=kvm: on the hosts we measured, i386 guests under KVM '
                'hung at the BIOS or reset at once; TCG (the default) works')
        _prune_runs()
        Guest.runs += 1
        self.run = os.path.join(BUILD, 'run', '%s-%d-%d' % (
            self.stage, os.getpid(), Guest.runs))
        os.makedirs(self.run)

    def _write_command(self, args):
        with open(self.path('qemu.cmd'), 'w') as f:
            f.write(shlex.join(args) + '\n')
        with open(self.path('gdb.port'), 'w') as f:
            f.write('%d\n' % self.port)
        if os.environ.get('SHOW'):
            say('QEMU: %s' % shlex.join(args))

    def start(self):
        """Start QEMU in the background and wait for its gdb port."""
        self._prepare()
        # A random loopback port; if another process takes it first,
        # QEMU fails to bind and another is tried.
        for _ in range(5):
            self.port = 20000 + random.randrange(40000)
            if _port_listening(self.port):
                continue
            args = self.qemu_args()
            self._write_command(args)
            with open(self.path('qemu.log'), 'wb') as log:
                self.qemu = subprocess.Popen(
                    args, stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                    preexec_fn=_die_with_parent)
            deadline = time.time() + 10
            while self.qemu.poll() is None:
                if _port_listening(self.port):
                    threading.Thread(target=self._watch_end, daemon=True).start()
                    return self
                if time.time() > deadline:
                    self.stop()
                    raise GuestError('QEMU did not open its gdb port within '
                                     '10 s (%s)' % self.path('qemu.log'))
                time.sleep(0.05)
            with open(self.path('qemu.log')) as f:
                log = f.read()
            if 'Address already in use' not in log:
                raise GuestError('QEMU failed to start (log: %s):\n%s' % (
                    self.path('qemu.log'), log.rstrip()))
        raise GuestError('no free gdb port found after 5 tries')

    def console(self):
        """Run QEMU in the foreground with the serial console on this
        terminal (make boot); the guest's exit status when it ends."""
        self._prepare()
        self.port = 20000 + random.randrange(40000)
        args = self.qemu_args(console=True)
        self._write_command(args)
        say('stage %s: serial console below, gdb port %d; Ctrl-A X quits'
            % (self.stage, self.port))
        qemu = subprocess.Popen(args)
        threading.Thread(target=self._silence_watch, args=(qemu, 20),
                         daemon=True).start()
        rc = qemu.wait()
        if rc == 0 and not self.serial():
            # -no-reboot turns a reset into QEMU's exit, status 0.
            say('the guest reset before the kernel printed a word (a triple '
                'fault, or %s);\n  %s'
                % ('KVM refusing the i386 guest' if self.accel == 'kvm'
                   else 'a fault before its console was up',
                   'leave ACCEL unset (TCG)' if self.accel == 'kvm' else
                   "a lab on this stage (make lab) stops in gdb where it happens"))
            return 1
        # An odd code is the guest's qemu-exit: status (rc - 1) / 2.
        return (rc - 1) // 2 if rc % 2 else rc

    def _silence_watch(self, qemu, seconds):
        """Say so when a guest has printed nothing for SECONDS: under KVM,
        an i386 guest has hung at the BIOS on some hosts."""
        end = time.time() + seconds
        while time.time() < end:
            if qemu.poll() is not None or self.serial():
                return
            time.sleep(0.5)
        say('the guest has printed nothing in %d s%s; Ctrl-A X quits' % (
            seconds, ' (ACCEL=kvm: i386 guests hang at the BIOS under KVM on '
            'some hosts; leave ACCEL unset for TCG)' if self.accel == 'kvm'
            else ''))

    def _watch_end(self):
        """Write qemu.exit, in one line, as soon as QEMU ends: a gdb
        command run after the guest is gone (gdb-scripts/kstack/stacks.py)
        reads why from it. QEMU's status is looked at without reaping it
        (WNOWAIT), so Popen's own poll() and wait() still get it."""
        pid = self.qemu.pid
        while True:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                rc = None if info is None else info.si_status \
                    if info.si_code == os.CLD_EXITED else -info.si_status
            except ChildProcessError:       # already reaped by Popen
                rc = self.qemu.returncode
                if rc is None:
                    return
            if rc is not None:
                with open(self.path('qemu.exit'), 'w') as f:
                    f.write(self.end_cause(rc) + '\n')
                return
            time.sleep(0.2)

    def end_cause(self, rc=None):
        """How QEMU ended, in one line: its status or the signal that
        killed it (RC, or its return code), and what qemu.log says of a
        signal it caught (QEMU ends on SIGTERM by itself, status 0)."""
        rc = self.qemu.returncode if rc is None else rc
        try:
            with open(self.path('qemu.log'), errors='replace') as f:
                caught = re.findall(r'terminating on signal \d+.*', f.read())
        except OSError:
            caught = []
        if rc is not None and rc < 0:
            how = 'QEMU was killed by signal %d (%s)' % (-rc, signal.Signals(-rc).name)
        elif caught:
            how = 'QEMU ended, %s' % caught[-1].strip()
        elif rc == 0:
            how = ('QEMU exited with status 0: the guest reset (a panic, with '
                   'panic=-1 and -no-reboot) or shut down')
        elif rc is not None and rc % 2:
            how = "QEMU exited: the guest's program asked for exit status %d" % ((rc - 1) // 2)
        else:
            how = 'QEMU exited with status %s' % rc
        return '%s (log: %s)' % (how, self.path('qemu.log'))

    def alive(self):
        return self.qemu is not None and self.qemu.poll() is None

    def stop(self):
        """End QEMU if it still runs (TERM, then KILL) and reap it."""
        if self.qemu is None:
            return
        if self.qemu.poll() is None:
            self.qemu.terminate()
            try:
                self.qemu.wait(2)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()
        try:
            os.unlink(self.path('monitor.sock'))
        except OSError:
            pass

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- watching the guest -------------------------------------------

    def wait_for(self, pattern, timeout=30):
        """Wait until the console shows PATTERN (a regular expression);
        the match. GuestError, explained, if QEMU ends first or TIMEOUT
        seconds pass."""
        deadline = time.time() + timeout
        while True:
            m = re.search(pattern, self.serial())
            if m:
                return m
            if not self.alive():
                raise GuestError(self.explain(
                    "QEMU exited before the guest printed '%s'" % pattern))
            if time.time() > deadline:
                raise GuestError(self.explain(
                    "no '%s' from the guest within %d s (hung guest?)"
                    % (pattern, timeout)))
            time.sleep(0.05)

    def wait_exit(self, timeout=30):
        """Wait for QEMU to end by itself: the guest's status (from
        qemu-exit), or "qemu:RC" when QEMU ended otherwise (a panic
        reboots, which -no-reboot turns into exit code 0)."""
        try:
            rc = self.qemu.wait(timeout)
        except subprocess.TimeoutExpired:
            message = self.explain('the guest did not exit within %d s' % timeout)
            self.stop()
            raise GuestError(message)
        return (rc - 1) // 2 if rc % 2 else 'qemu:%d' % rc

    def explain(self, what):
        """WHAT went wrong, with the reason the run's logs give: the
        post-mortem gdb wrote where the kernel died or hung (postmortem.txt,
        labs/guard.py), else the kernel's own words from the console, its
        EIP and call trace as file:line (vm/session/kernelwords.py)."""
        lines = ['%s: %s' % (PROG, what)]
        try:
            with open(self.path('qemu-debug.log')) as f:
                if 'Triple fault' in f.read():
                    lines.append('  the guest CPU triple-faulted (see %s)'
                                 % self.path('qemu-debug.log'))
        except OSError:
            pass
        if os.path.exists(self.path('deadline-passed')):
            with open(self.path('deadline-passed')) as f:
                lines.append('  no stop within %s s: the guest hung before it '
                             '(LAB_TIMEOUT sets the limit)' % f.read().strip())
        serial = self.serial()
        try:
            with open(self.path('postmortem.txt')) as f:
                told = ['  ' + l for l in f.read().rstrip('\n').split('\n')]
            lines += told + ['  (this report: %s)' % self.path('postmortem.txt')]
        except OSError:
            told = []
            if 'Kernel panic' in serial:
                lines.append('  the kernel panicked')
            lines += kernelwords.report(serial, os.path.join(
                stage_obj(self.stage), 'vmlinux'))
        if not serial:
            lines.append('  the kernel printed nothing: it never reached its '
                         'console (MEM=%d MiB;' % self.mem)
            lines.append('  it is loaded at 16 MiB and the labs give it 128)')
        elif not told:
            lines.append('  last lines of %s:' % self.path('serial.log'))
            lines += ['    ' + l for l in serial.rstrip('\n').split('\n')[-8:]]
        return '\n'.join(lines)

    def deadline(self, seconds):
        """A lab's first stop must come within SECONDS: unless the guard
        (labs/guard.py) has marked it reached (lab-stopped) or seen the
        kernel die (lab-died), the guest is hung then: hung() reports it."""
        def watch():
            end = time.time() + seconds
            while time.time() < end:
                if (os.path.exists(self.path('lab-stopped')) or
                        os.path.exists(self.path('lab-died')) or not self.alive()):
                    return
                time.sleep(0.1)
            with open(self.path('deadline-passed'), 'w') as f:
                f.write('%d\n' % seconds)
            self.hung()
        threading.Thread(target=watch, daemon=True).start()

    def hung(self, grace=60):
        """The guest is hung: with gdb attached, have it say where every
        CPU is and dump the guest's memory (labs/guard.py, which reads the
        file hung), waiting GRACE seconds for that; then end QEMU."""
        open(self.path('hung'), 'w').close()
        p = self.gdb_proc
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        if self.alive():
            self.qemu.terminate()

    def monitor(self, command, timeout=TIMEOUT):
        """Run a QEMU monitor command; its answer."""
        import socket
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        s.connect(self.path('monitor.sock'))

        def until_prompt():
            data = b''
            while not data.endswith(b'(qemu) '):
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            return data.decode(errors='replace')
        with s:
            until_prompt()                      # the banner
            s.sendall(command.encode() + b'\n')
            out = until_prompt()
        return '\n'.join(l for l in out.splitlines()[1:]
                         if not l.startswith('(qemu)'))

    # -- gdb --------------------------------------------------------------

    def gdb_argv(self, args):
        """gdb on this guest: its stage's vmlinux, attached to its gdbstub,
        with the kernel's lx-* helpers auto-loaded (the safe path covers
        the build folder, so no ~/.gdbinit is needed) and the project's
        gdb-scripts/load.py; then ARGS (-batch, scripts), before the
        file. The kernel's debug info names its sources relative to the
        tree (vm/host/kmake.sh): gdb finds them in this kernel's tree,
        the generated ones in its objects' folder and the lab modules'
        (modules/src/) in its stage's folder."""
        return [facts.host()['gdb'], '-q', '-nx',
                '-iex', 'set directories %s:%s:%s:$cdir:$cwd' % (
                    stage_src(self.stage), stage_obj(self.stage),
                    stage_dir(self.stage)),
                '-iex', 'add-auto-load-safe-path %s' % BUILD] + [
                    a for folder in self._safe_folders()
                    for a in ('-iex', 'add-auto-load-safe-path %s' % folder)] + [
                '-iex', 'set confirm off', '-iex', 'set pagination off',
                '-ex', 'source %s' % os.path.join(TOP, 'gdb-scripts', 'load.py'),
                '-ex', 'target remote 127.0.0.1:%d' % self.port] + list(args) + [
                    os.path.join(stage_obj(self.stage), 'vmlinux')]

    def _safe_folders(self):
        """Where this kernel's vmlinux-gdb.py may be, for gdb's auto-load
        safe path beyond the build folder: its objects' folder as named
        and as gdb resolves it (an exercise folder may lie anywhere,
        EXERCISES, or be reached through a link)."""
        obj = stage_obj(self.stage)
        return sorted({obj, os.path.realpath(obj)} - {BUILD})

    def _gdb_env(self, env):
        self.gdb_runs += 1
        records = self.path('gdb-%d.jsonl' % self.gdb_runs)
        # KS_STAGE_DIR: the kernel's folder as the session names it
        # (gdb-scripts/kstack/modsyms.py finds the lab modules there, not
        # beside the real path of vmlinux, which a link may lead elsewhere).
        return dict(os.environ, KS_RUN=self.run, KS_RESULTS=records,
                    KS_STAGE_DIR=stage_dir(self.stage), **(env or {})), records

    def gdb(self, args, timeout=TIMEOUT, env=None, guarded=False):
        """gdb in batch mode on this guest, running ARGS (-x FILE, -ex
        CMD...); a GdbRun. A gdb still running after TIMEOUT seconds is
        ended (rc 124); GUARDED (ARGS load labs/guard.py): it is first
        asked where the hung guest's CPUs are (Guest.hung)."""
        env, records = self._gdb_env(env)
        p = subprocess.Popen(self.gdb_argv(['-batch'] + list(args)), env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        self.gdb_proc = p if guarded else None
        try:
            out, _ = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            if guarded:
                threading.Thread(target=self.hung, daemon=True).start()
                try:
                    out, _ = p.communicate(timeout=70)
                    return self._gdb_done(124, out, records)
                except subprocess.TimeoutExpired:
                    pass
            p.terminate()
            try:
                out, _ = p.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            rc = 124
        return self._gdb_done(rc, out, records)

    def _gdb_done(self, rc, out, records):
        self.gdb_proc = None
        output = out.decode(errors='replace')
        with open(self.path('gdb-%d.log' % self.gdb_runs), 'w') as f:
            f.write(output)
        return GdbRun(rc, output, results.read(records))

    def gdb_interactive(self, args, env=None):
        """gdb for a learner, on this terminal; its exit status. With a
        terminal, gdb runs as a process group of its own in the terminal's
        foreground, as a shell runs a job: Ctrl-C reaches gdb alone (which
        stops the guest), not make and this session."""
        env, _ = self._gdb_env(dict(env or {}, KS_INTERACTIVE='1'))
        tty = sys.stdin.fileno() if sys.stdin.isatty() else None

        def take_terminal():
            os.setpgid(0, 0)
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            os.tcsetpgrp(tty, os.getpgrp())
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        p = subprocess.Popen(self.gdb_argv(args), env=env,
                             preexec_fn=take_terminal if tty is not None else None)
        self.gdb_proc = p
        try:
            return p.wait()
        finally:
            self.gdb_proc = None
            if tty is not None:
                old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
                os.tcsetpgrp(tty, os.getpgrp())
                signal.signal(signal.SIGTTOU, old)


def _prune_runs():
    """Keep the newest KS_KEEP_RUNS (30) run folders: they hold only logs,
    which is what a failure needs. A folder whose QEMU runs is kept."""
    root = os.path.join(BUILD, 'run')
    if not os.path.isdir(root):
        return
    keep = int(os.environ.get('KS_KEEP_RUNS') or 30)
    folders = sorted((os.path.join(root, d) for d in os.listdir(root)),
                     key=os.path.getmtime, reverse=True)
    for old in folders[keep:]:
        try:
            with open(os.path.join(old, 'qemu.pid')) as f:
                os.kill(int(f.read()), 0)
            continue                    # still running
        except (OSError, ValueError):
            pass
        subprocess.call(['rm', '-rf', old])
