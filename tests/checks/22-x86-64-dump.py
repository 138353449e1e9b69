# Lab 7's post-mortem (make crash N=7): lab 7's x86_64 kernel dumped after
# its guard-page panic (vm/session/crash.py), then read by the host's own
# tools, as a learner reads it:
#   crash (Debian's amd64 crash, started --no_panic) finds the panic, and
#   bt of the task that died shows the double fault on its own stack and
#   the recursion under it;
#   drgn (python3-drgn) opens the "paging" dump, with its VMCOREINFO, and
#   the stack trace of its crashed thread (prog.crashed_thread(): CPU 0's
#   registers, where lab 7's guest runs the descent) goes from the panic
#   back through handle_stack_overflow() and exc_double_fault().
import os
import re
import subprocess
import tempfile

from vm.session import crash
from tests.checklib import GuestError, expect, log

try:
    vmcore = crash.dump('x86_64')
except GuestError as e:
    expect(False, 'x86_64: the guard-page descent panics and QEMU dumps it', e)
    raise SystemExit(0)
ps = crash.run('x86_64', ['sys', 'ps'])
log(ps)
dd = re.search(r'^>?\s+(\d+)\s.*\sdd$', ps, re.M)
expect('PANIC: "Kernel panic - not syncing: Fatal exception in interrupt"' in ps
       and dd, 'x86_64: crash opens the dump: sys gives the panic, ps the task '
       'dd', ps.strip()[-300:])
bt = crash.run('x86_64', ['bt %s' % (dd.group(1) if dd else 0)])
log(bt)
expect(all(s in bt for s in ('exc_double_fault', 'DOUBLEFAULT exception stack',
                             'descend')),
       'x86_64: crash\'s bt of dd shows exc_double_fault, the double-fault '
       'stack, and the descend frames under it', bt.strip()[:400])

obj = os.path.dirname(vmcore)
with tempfile.NamedTemporaryFile('w', suffix='.py') as script:
    script.write('for f in prog.crashed_thread().stack_trace():\n    print(f)\n')
    script.flush()
    p = subprocess.run(['drgn', '-q', '-c', vmcore + '.paged', '-s',
                        os.path.join(obj, 'obj', 'vmlinux'), script.name],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
log(p.stdout)
names = re.findall(r'\) in (\w+) at', p.stdout)
order = [names.index(n) if n in names else -1
         for n in ('panic', 'handle_stack_overflow', 'exc_double_fault')]
expect(p.returncode == 0 and -1 not in order and order == sorted(order),
       'x86_64: drgn opens the paging dump; its crashed thread\'s trace runs '
       'panic, handle_stack_overflow, exc_double_fault', p.stdout.strip()[-400:])
