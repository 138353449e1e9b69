# The cross path (HOST_CROSS=1: vm/hosts.toml's "cross" record), the path
# an arm64 host takes, taken on this amd64 one, in a build folder of its
# own (build/cross: its tree, stage 0's objects, initramfs, busybox and
# crash): stage 0 built by Debian's i386 cross compiler, lab 0's grader
# passing under gdb-multiarch, make crash N=0 opening the dump under
# qemu-i386; then lab 7's kernel built by the x86_64 cross compiler, its
# grader passing, and make crash N=7 opening its dump with Debian's amd64
# crash under qemu-x86_64. Which programs ran is read from strace's record of every
# execve, and which compiler built the kernel from the kernel's own words:
# its boot line "Linux version ... (COMPILER, LINKER)". That test fails on
# this checkout's own stage 0, which the host's gcc built.
import glob
import os
import re
import subprocess

from tests.checklib import BUILD, TOP, expect, log

CROSS = os.path.join(BUILD, 'cross')
# The compile cache is this checkout's (a cross compiler's objects are its
# own: ccache hashes the compiler).
ENV = dict(os.environ, HOST_CROSS='1', BUILD=CROSS,
           CCACHE_DIR=os.environ.get('CCACHE_DIR') or os.path.join(BUILD, 'ccache'))


def traced(name, argv, stdin=''):
    """ARGV run with the cross path's environment, under strace: (exit
    status, output, the programs it executed)."""
    trace = os.path.join(BUILD, 'check', 'cross-%s.strace' % name)
    p = subprocess.run(['strace', '-f', '-qq', '--seccomp-bpf', '-e', 'trace=execve', '-o',
                        trace] + argv,
                       input=stdin, capture_output=True, text=True, env=ENV, cwd=TOP)
    with open(trace) as f:
        ran = set(re.findall(r'execve\("([^"]+)".* = 0$', f.read(), re.M))
    log('$ HOST_CROSS=1 BUILD=%s %s (exit %d)\n%s' % (CROSS, ' '.join(argv), p.returncode,
                                                     (p.stdout + p.stderr)[-3000:]))
    return p.returncode, p.stdout + p.stderr, ran


def compiler(banner_text):
    """The compiler a kernel names in its "Linux version" line."""
    m = re.search(r'Linux version \S+ \(\S+\) \((\S+)', banner_text)
    return m.group(1) if m else None


def cross_built(banner_text, prefix='i686-linux-gnu-'):
    return compiler(banner_text) == prefix + 'gcc'


rc, out, ran = traced('grade', ['make', '-s', 'grade', 'N=0', 'ANSWERS=/dev/null'])
expect(rc == 0 and re.search(r'^lab 0: \d+ passed, 0 failed', out, re.M),
       "HOST_CROSS=1: stage 0 built in build/cross, and lab 0's grader passes", out.strip()[-400:])
gdbs = sorted(p for p in ran if re.match(r'gdb(-multiarch)?$', os.path.basename(p)))
expect(gdbs == ['/usr/bin/gdb-multiarch'], 'HOST_CROSS=1: gdb-multiarch ran (the grader, the '
       "kernel's index), and no other gdb", gdbs)
compilers = sorted({os.path.basename(p) for p in ran if re.search(r'(^|-)gcc(-\d+)?$', p)})
serials = sorted(glob.glob(os.path.join(CROSS, 'run', '*', 'serial.log')), key=os.path.getmtime)
said = open(serials[-1], errors='replace').read() if serials else ''
expect(cross_built(said), "HOST_CROSS=1: the guest's kernel says the i386 cross compiler built "
       'it (its "Linux version" line)', compiler(said) or said[:200])
# The same test, on the kernel of this checkout's own build folder.
native = subprocess.run(['strings', os.path.join(BUILD, 'stage-0', 'obj', 'vmlinux')],
                        capture_output=True, text=True).stdout
expect(compiler(native) and not cross_built(native), 'that test fails on the stage 0 the host\'s '
       'gcc built (it names %s)' % compiler(native), compiler(native))

rc, out, ran = traced('crash', ['make', '-s', 'crash', 'N=0'], stdin='sys\nquit\n')
expect(rc == 0 and 'PANIC:' in out and '/usr/bin/qemu-i386' in ran,
       'HOST_CROSS=1: make crash N=0 dumps the cross-built kernel and opens the dump with '
       'crash under qemu-i386', out.strip()[-300:])
log('compilers the grade ran: %s' % ' '.join(compilers))

rc, out, ran = traced('grade7', ['make', '-s', 'grade', 'N=7', 'ANSWERS=/dev/null'])
vmlinux = subprocess.run(['strings', os.path.join(CROSS, 'stage-x86_64', 'obj', 'vmlinux')],
                         capture_output=True, text=True).stdout
expect(rc == 0 and re.search(r'^lab 7: \d+ passed, 0 failed', out, re.M) and
       cross_built(vmlinux, 'x86_64-linux-gnu-') and '/usr/bin/gdb-multiarch' in ran and
       '/usr/bin/gdb' not in ran,
       "HOST_CROSS=1: lab 7's kernel, built by x86_64-linux-gnu-gcc, passes lab 7's grader "
       'under gdb-multiarch', (compiler(vmlinux), out.strip()[-300:]))
rc, out, ran = traced('crash7', ['make', '-s', 'crash', 'N=7'], stdin='sys\nquit\n')
expect(rc == 0 and 'PANIC:' in out and '/usr/bin/qemu-x86_64' in ran,
       "HOST_CROSS=1: make crash N=7 opens lab 7's dump with Debian's amd64 crash under "
       'qemu-x86_64', out.strip()[-300:])
