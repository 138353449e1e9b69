"""crash on a dump of a stage's kernel (make crash, lab 6), or of lab 7's
x86_64 kernel (make crash N=7).

The dump (build/stage-K/vmcore) is made once per kernel: boot it with a
workload that panics (its machine's panic_guest, vm/stages.toml: lab 6's stack overflow on an i386 stage,
lab 7's descent into the guard page on x86_64), wait for the panic, and
have QEMU write the guest's memory as an ELF core (monitor:
dump-guest-memory). For an i386 kernel crash is Debian's i386 build,
unpacked into the build cache by vm/host/deps.sh. It runs under QEMU's
user-mode emulator (qemu-i386) on every host, whether or not the host's
kernel can run i386 programs itself: one path for every machine. For
x86_64 it is Debian's own crash package: the host's program on amd64,
run by qemu-x86_64 on the cross path (HOST_CROSS=1). How crash runs for
each machine is this host's record's (vm/hosts.toml).

x86_64's dump is written twice. crash reads the plain one (physical
memory); drgn (python3-drgn) needs the "paging" one, whose segments
carry kernel virtual addresses, and the VMCOREINFO note the guest's
fw_cfg driver gives QEMU (vm/session/session.py): `drgn -c
build/stage-x86_64/vmcore.paged -s build/stage-x86_64/obj/vmlinux`, then
`prog.crashed_thread().stack_trace()`. drgn finds the crashed thread's
registers through crashing_cpu, which only a kdump kernel's crash path
sets; after a plain panic it takes CPU 0's, so lab 7's guest runs the
descent on CPU 0 (labs/7/guest.sh). crash 8.0.2 cannot read the paging dump ("do not match"), and its search
for the panicking task stops at 6.1's maple tree ("invalid structure
member offset: mm_struct_mmap"): it starts with --no_panic, and `bt PID`
shows any task.

crash 8.0.2 looks up sys_open, sys_fork and sys_read while probing how an
x86 kernel was built; 6.1 names them __ia32_sys_*. A copy of System.map
with those three names added lets it start.
"""
import os
import re
import shutil
import subprocess
import time

from vm.session import facts
from vm.session.session import (BUILD, TIMEOUT, Guest, GuestError, initramfs, say,
                                stage_dir, stage_obj)

ALIASES = {'__ia32_sys_open': 'sys_open', '__ia32_sys_fork': 'sys_fork',
           '__ia32_sys_read': 'sys_read'}


def _stale(vmcore, stage):
    inputs = [os.path.join(stage_obj(stage), 'vmlinux'),
              initramfs(stage),
              os.path.join(stage_dir(stage), 'modules.cpio')]
    paged = facts.machine(stage)['paged_dump']    # the dump drgn reads, too
    return not os.path.exists(vmcore) or (
        paged and not os.path.exists(vmcore + '.paged')) or any(
        os.path.exists(p) and os.path.getmtime(p) > os.path.getmtime(vmcore)
        for p in inputs)


def dump(stage, append=''):
    """Stage STAGE's dump after its panic (panic_guest), made if missing or
    older than the kernel, the initramfs or the modules. APPEND: words a
    learner's variant adds to the guest's command line (lab 6's frame
    size), which make a dump of their own, kept beside the book's."""
    vmcore = os.path.join(stage_dir(stage), 'vmcore' + (
        '-' + re.sub(r'[^A-Za-z0-9]+', '-', append) if append else ''))
    if not _stale(vmcore, stage):
        return vmcore
    for p in (vmcore, vmcore + '.tmp', vmcore + '.paged'):
        if os.path.exists(p):
            os.unlink(p)
    # Lab 6's panic needs a serial interrupt to land while dd waits deep
    # in its stack; once in a while none of them does (seen once: the
    # writer's lines went out, 3 interrupts reached dd's CPU, none found
    # the stack low), and the guest ends without one. A fresh guest then
    # gets one more chance; a kernel that never panics fails twice.
    for attempt in (1, 2):
        try:
            _panic_and_dump(stage, vmcore, append)
            break
        except GuestError as e:
            if attempt == 2 or 'QEMU exited before' not in str(e):
                raise
            say('stage %s: %s\nstage %s: no panic this time: booting a fresh guest, once'
                % (stage, e, stage))
    os.replace(vmcore + '.tmp', vmcore)
    say('stage %s: dump in %s (%d MB)' % (
        stage, vmcore, os.path.getsize(vmcore) >> 20))
    return vmcore


def _panic_and_dump(stage, vmcore, append=''):
    """Boot STAGE with its machine's panic_guest, wait for the panic and have
    QEMU write VMCORE.tmp (and, on x86_64, VMCORE.paged)."""
    try:
        panics = facts.machine(stage)['panic_guest']
        with Guest(stage, panics, append=' '.join(('panic=0', append)).strip()) as guest:
            say('stage %s: waiting for the panic of %s (serial log: %s)'
                % (stage, panics, guest.path('serial.log')))
            m = guest.wait_for(r'Kernel panic - not syncing: [^\n]*', TIMEOUT)
            say('stage %s: %s' % (stage, m.group(0)))
            # panic() prints its last line once it has stopped the other
            # CPUs: a dump taken earlier catches them still running.
            guest.wait_for(r'---\[ end Kernel panic', 30)
            if facts.machine(stage)['paged_dump']:
                guest.monitor('dump-guest-memory -p %s.paged' % vmcore)
            guest.monitor('dump-guest-memory %s.tmp' % vmcore)
            if not os.path.getsize(vmcore + '.tmp'):
                raise GuestError('QEMU wrote no dump')
    except BaseException:
        if os.path.exists(vmcore + '.tmp'):
            os.unlink(vmcore + '.tmp')
        raise


def command(stage, quiet=True, vmcore=None, append=''):
    """The command line that opens stage STAGE's dump with crash (QUIET:
    no banner, for a batch of commands); VMCORE: another dump of that
    kernel (a hung lab's, which vm/session/ks keeps in its run folder);
    APPEND: the variant's words of the dump (dump())."""
    machine = facts.machine(stage)['name']
    run = facts.toolchain(machine)['crash']
    if not run:
        raise GuestError('this host has no crash for %s dumps: %s' % (machine, facts.host()['lacks']))
    if run[0].startswith('qemu-') and not shutil.which(run[0]):
        raise GuestError("%s not found (package qemu-user): run 'make deps'" % run[0])
    program = run[1] if run[0].startswith('qemu-') else run[0]
    if program.startswith(BUILD) and not os.access(program, os.X_OK):
        raise GuestError("crash is not in the build cache: run 'make deps'")
    if not shutil.which(program):
        raise GuestError("crash not found (package crash): run 'make deps'")
    obj = stage_obj(stage)
    if not os.path.exists(os.path.join(obj, 'vmlinux')):
        raise GuestError("stage %s has no kernel: run 'make kernel N=%s'"
                         % (stage, stage))
    if vmcore is None:
        vmcore = dump(stage, append)
    elif not os.path.isfile(vmcore):
        raise GuestError('no dump at %s' % vmcore)
    crash_map = os.path.join(stage_dir(stage), 'crash.map')
    with open(os.path.join(obj, 'System.map')) as f, open(crash_map, 'w') as out:
        for line in f:
            out.write(line)
            words = line.split()
            if len(words) == 3 and words[2] in ALIASES:
                out.write('%s %s %s\n' % (words[0], words[1], ALIASES[words[2]]))
    return (run + (['-s'] if quiet else []) +
            [crash_map, os.path.join(obj, 'vmlinux'), vmcore])


def run(stage, commands, append=''):
    """crash's output for COMMANDS (a list of lines), run in batch (on
    the dump of APPEND's words, dump())."""
    text = '\n'.join(commands) + '\n'
    if not re.search(r'^quit$', text, re.M):
        text += 'quit\n'
    p = subprocess.run(command(stage, append=append), input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.stdout.decode(errors='replace')


class Session:
    """crash started once on a stage's dump, asked in turns: each ask()
    writes its commands to crash's input (a pipe, from which crash reads
    as from a terminal, answering each line in turn) and reads the
    answer up to a marker it has crash echo. Starting crash is most of
    its cost (about 12 s under qemu-i386; a command after that, under a
    second), so a reader that needs a first answer to know its next
    question asks both of one crash."""
    END = '==== ks-end-of-answer %d'

    def __init__(self, stage, timeout=TIMEOUT, append=''):
        self.timeout = timeout
        self.asked = 0
        self.proc = subprocess.Popen(command(stage, append=append), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def ask(self, commands):
        """crash's output for COMMANDS (a list of lines)."""
        import select
        self.asked += 1
        end = self.END % self.asked
        text = ''.join('%s\n' % c for c in commands if c.strip() != 'quit')
        try:
            self.proc.stdin.write(('%secho %s\n' % (text, end)).encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass                 # crash has ended: its last words are read below
        out, deadline = b'', time.time() + self.timeout
        # (Not only at a line's start: rd -a ends its string with no newline.)
        while end.encode() not in out:
            ready, _, _ = select.select([self.proc.stdout], [], [],
                                        max(0, deadline - time.time()))
            chunk = os.read(self.proc.stdout.fileno(), 65536) if ready else b''
            if not chunk:
                raise GuestError('crash %s before answering (%s): %s' % (
                    'ended' if ready else 'gave no answer within %d s' % self.timeout,
                    ', '.join(commands), out.decode(errors='replace').strip()[-300:]
                    or 'nothing'))
            out += chunk
        text = out.decode(errors='replace')
        return text[:text.rindex(end)]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'quit\n')
                self.proc.stdin.close()
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def rd_words(text):
    """The words of crash's rd output (lines of "address:  w w w w  ascii"),
    as (address, value) pairs, in order."""
    found = []
    for line in text.splitlines():
        m = re.match(r'([0-9a-f]+):((?:\s+[0-9a-f]{8}){1,4})', line)
        if m:
            base = int(m.group(1), 16)
            found += [(base + 4 * i, int(w, 16))
                      for i, w in enumerate(m.group(2).split())]
    return found
