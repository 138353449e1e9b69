# Grader of lab 5's task (make grade N=5 EXERCISE=1): the learner's
# guest program that predicts the lab's thread count (build/exercises/5/
# predict.c, made from labs/5/task/predict.c by make exercise N=5). Run
# by vm/session/ks on the host, not in gdb:
#
# - it compiles the program for i386 (CC -m32 -static, CC this host's
#   compiler for i386 programs, vm/hosts.toml: i686-linux-gnu-gcc; with
#   vm/guest/ on the include path for spawn()), as vm/host/initramfs.sh
#   compiles the guest's programs; nothing i386 runs on the host;
# - it packs the program into /task/5/bin in a second cpio archive after
#   the guest's initramfs (the kernel unpacks concatenated archives in
#   order, as it does the lab modules' archive);
# - it boots the lab's stage (stage 3, 4K stacks) with the lab's guest
#   script, labs/5/guest.sh, which finds the program there, runs it with
#   the lab's limits, waits for the memory of its sample to come back,
#   then runs the lab's own measurement, threads (vm/guest/threads.c);
# - it compares: KernelStack's growth per thread with THREAD_SIZE
#   (vm/stages.toml), the prediction with the count threads reached;
# - it does it all again in a guest with 32 MiB more memory (MORE), where
#   threads reaches another count: a prediction must come from the
#   guest it runs in, not be a number seen once.
#
# Several programs (tests/checks/84-tasks.py grades the reference, the
# skeleton and wrong solutions) run one after another in the same guest.
import os
import re
import subprocess

from vm.session import facts
from labs import tasklib
from labs.gradelib import (Fail, expect_true, lab_number,
                           run_tests, test)
from vm.session.session import BUILD, Guest, GuestError

LAB = facts.lab(lab_number())
THREAD_KB = LAB['stage_facts']['thread_size'] / 1024
TOLERANCE = 4                  # percent, between prediction and count
WORK = os.path.join(BUILD, 'task', '5')
SOLUTIONS = tasklib.solutions()
MEM = int(os.environ.get('MEM') or 128)     # the guest's MiB, as vm/session/session.py's
# This host's compiler for i386 programs (vm/hosts.toml).
CC = facts.toolchain('i386')['programs'] + 'gcc'
MORE = 32          # MiB more in the second guest: a count a quarter higher
# 'serial', 'threads' (per guest's MiB), and per label: 'binary', and
# per guest's MiB: {'lines', 'status'}
RUN = {}


def cpio(entries):
    """A newc cpio archive of ENTRIES: (name, mode, data or None for a
    folder), as the kernel unpacks an initramfs."""
    out = bytearray()

    def add(name, mode, data):
        name = name.encode() + b'\0'
        fields = (len(out) // 64 + 1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0,
                  len(name), 0)
        out.extend(b'070701' + b''.join(b'%08X' % f for f in fields) + name)
        out.extend(b'\0' * (-len(out) % 4))
        out.extend(data)
        out.extend(b'\0' * (-len(out) % 4))
    for name, mode, data in entries:
        add(name, mode, data if data is not None else b'')
    add('TRAILER!!!', 0, b'')
    return bytes(out)


def name(sol):
    return sol.label or 'yours'


def compile_all():
    os.makedirs(WORK, exist_ok=True)
    for sol in SOLUTIONS:
        binary = os.path.join(WORK, name(sol))
        p = subprocess.run([CC, '-m32', '-static', '-O2', '-Wall',
                            '-I', os.path.join(facts.TOP, 'vm', 'guest'), '-o',
                            binary, sol.path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors='replace')
        if p.returncode:
            sol.error = next((l for l in out.splitlines() if 'error' in l),
                             out.strip()[-300:] or 'gcc failed')
        else:
            RUN[name(sol)] = {'binary': binary}


def initrd(labels):
    """The guest's initramfs with the programs of LABELS after it (in
    /task/5/bin, where labs/5/guest.sh looks for them)."""
    entries = [('task', 0o40755, None), ('task/5', 0o40755, None),
               ('task/5/bin', 0o40755, None)]
    for label in sorted(labels):
        with open(RUN[label]['binary'], 'rb') as f:
            entries.append(('task/5/bin/%s' % label, 0o100755, f.read()))
    joined = os.path.join(WORK, 'initrd.cpio')
    with open(os.path.join(BUILD, 'initramfs.cpio'), 'rb') as f, \
            open(joined, 'wb') as out:
        out.write(f.read())
        out.write(cpio(entries))
    return joined


@test('%s -m32 -static compiles them (none runs on the host)' % CC)
def compiling():
    compile_all()
    return '%d of %d' % (len(RUN), len(SOLUTIONS))


def run_in(mem, labels, image):
    """Boot the lab's guest with MEM MiB and IMAGE, which runs the
    programs of LABELS, then threads: each label's lines and exit status,
    and threads' count, in RUN."""
    was = os.environ.get('MEM')
    os.environ.update(KS_INITRAMFS=image, MEM=str(mem))
    try:
        with Guest(LAB['stage'], '/labs/5/guest.sh') as g:
            try:
                g.wait_exit(300)
            finally:
                serial = g.serial()
    except GuestError as e:
        raise Fail('the guest (%d MiB)' % mem, 'it runs the programs and threads', str(e))
    finally:
        del os.environ['KS_INITRAMFS']
        os.environ.pop('MEM')
        if was is not None:
            os.environ['MEM'] = was
    RUN.setdefault('serial', {})[mem] = serial
    for label in labels:
        m = re.search(r'task5: run %s\n(.*?)task5: end %s status (\d+)' % (
            re.escape(label), re.escape(label)), serial, re.S)
        RUN[label][mem] = {'lines': m.group(1).splitlines() if m else None,
                           'status': int(m.group(2)) if m else None}
    done = re.search(r'threads: done (\d+) \((.*)\)', serial.split(
        'task5: threads')[-1])
    expect_true(done, "the lab's threads, after the programs (%d MiB)" % mem,
                '"threads: done N (...)"', serial.strip()[-400:])
    RUN.setdefault('threads', {})[mem] = int(done.group(1))
    return done.group(2)


@test("the programs run in the lab's guest, then threads (stage %s), and "
      "again with %d MiB more" % (LAB['stage'], MORE), parent=compiling)
def guest():
    labels = list(RUN)
    expect_true(labels, 'programs to run', 'at least one that compiles', 'none')
    image = initrd(labels)
    why = run_in(MEM, labels, image)
    run_in(MEM + MORE, labels, image)
    return 'threads made %d threads (%s), and %d with %d MiB' % (
        RUN['threads'][MEM], why, RUN['threads'][MEM + MORE], MEM + MORE)


def value(sol, key, mem=MEM):
    """The number SOL's program printed after "KEY:" in the guest of MEM
    MiB, or None."""
    for line in RUN[name(sol)][mem]['lines'] or []:
        m = re.match(r'\s*%s:\s*(-?[0-9.]+)\s*$' % key, line)
        if m:
            return float(m.group(1))
    return None


def compiled(sol):
    def check():
        expect_true(sol.error is None, '%s -m32 -static -O2 -Wall %s'
                    % (CC, sol.path), 'no error', sol.error)
    return check


KEYS = ('stack_kb_per_thread', 'kb_per_thread', 'predicted_threads')


def printed(sol):
    def check():
        expect_true('threads' in RUN, "the guest's run", 'it ran the programs',
                    'it did not: see the check above')
        run = RUN[name(sol)][MEM]
        expect_true(run['lines'] is not None, 'your program in the guest',
                    'it ran', 'no trace of it on the console')
        said = '\n'.join(run['lines'][:12]) or '(nothing)'
        missing = [k for k in KEYS if value(sol, k) is None]
        expect_true(not missing, 'the lines your program printed (exit '
                    'status %s)' % run['status'], '\n'.join('%s: ...' % k for k in KEYS),
                    said + '\n(no %s line)' % ', no '.join(missing) if missing else said)
    return check


def stack_size(sol):
    def check():
        got = value(sol, 'stack_kb_per_thread')
        # KernelStack counts whole stacks: the growth over the sample is
        # exact (a kernel thread started meanwhile moves it by 0.001).
        expect_true(abs(got - THREAD_KB) < 0.005, 'stack_kb_per_thread: '
                    "KernelStack's growth per thread, in kB (THREAD_SIZE at "
                    'stage %s)' % LAB['stage'], '%.2f' % THREAD_KB, '%.2f' % got)
        return '%.2f kB' % got
    return check


def prediction(sol, mem):
    def check():
        got, count = value(sol, 'predicted_threads', mem), RUN['threads'][mem]
        expect_true(got is not None, 'your program in the guest of %d MiB' % mem,
                    'its predicted_threads line', '\n'.join(
                        RUN[name(sol)][mem]['lines'] or ['(nothing)'])[:400])
        off = 100.0 * (got - count) / count
        expect_true(abs(off) <= TOLERANCE, 'predicted_threads, against the '
                    "threads the lab's threads made in this guest of %d MiB "
                    '(within %d%%)' % (mem, TOLERANCE), '%d' % count,
                    '%d (%+.1f%%; kb_per_thread: %s)'
                    % (got, off, value(sol, 'kb_per_thread', mem)))
        return '%d predicted, %d made (%+.1f%%)' % (got, count, off)
    return check


BUILDS = [sol.check('predict.c compiles for i386 (%s -m32 -static)' % CC,
                    compiling, compiled(sol)) for sol in SOLUTIONS]
for sol, builds in zip(SOLUTIONS, BUILDS):
    prints = sol.check('it runs in the guest and prints its three lines',
                       builds, printed(sol))
    sol.check('KernelStack grows by THREAD_SIZE per thread', prints,
              stack_size(sol))
    sol.check('its prediction is within %d%% of the count threads reached'
              % TOLERANCE, prints, prediction(sol, MEM))
    sol.check('its prediction holds with %d MiB more, where threads reaches '
              'more' % MORE, prints, prediction(sol, MEM + MORE))

run_tests()
