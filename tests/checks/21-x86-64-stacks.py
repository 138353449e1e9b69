# Lab 7's kernel: Debian's 6.1 tree built for x86_64 (vm/build/kernel.sh
# x86_64), where task stacks live in vmalloc space between unmapped guard
# pages (VMAP_STACK). Booted halted in qemu-system-x86_64 with its own
# guest image, gdb stops in /init's first mount (tests/gdb/x86_64_stacks.py)
# and reads the current task's stack. Then lab 4's descent, 64 frames of
# stackdeep's recursion, more than 16K, runs on it: the first write past
# the stack's end must fault in the guard page, in the recursion itself.
# What the first run must show comes from two
# sources the kernel does not provide: vm/stages.toml (THREAD_SIZE) and
# the tree's own map of x86_64's address space (the vmalloc range of
# Documentation/x86/x86_64/mm.rst, 4-level paging, no KASLR).
import os
import re

from checklib import BUILD, Guest, GuestError, expect, facts, log, probe, record

with open(os.path.join(BUILD, 'src', 'linux', 'Documentation', 'x86',
                       'x86_64', 'mm.rst')) as f:
    m = re.search(r'^\s*([0-9a-f]{16}) \|[^|]*\| ([0-9a-f]{16}) \|[^|]*\| '
                  r'vmalloc/ioremap space', f.read(), re.M)
vmalloc = (int(m.group(1), 16), int(m.group(2), 16))
size = facts.stage('x86_64')['thread_size']
magic = facts.kernel()['stack_end_magic']

with Guest('x86_64', 'exit', halted=True) as guest:
    run = probe(guest, 'x86_64_stacks.py', 90)
s = record(run, 'x86_64-stack') or {}
base, sp = s.get('base', 0), s.get('sp', 0)


def inside(addr):
    return vmalloc[0] <= addr <= vmalloc[1]


expect(s.get('size') == size and base % size == 0,
       'x86_64: THREAD_SIZE is %d (vm/stages.toml), and the stack of %s '
       '(pid %s) is aligned to it' % (size, s.get('comm'), s.get('pid')),
       'THREAD_SIZE %s, stack %#x' % (s.get('size'), base))
expect(inside(base) and base <= sp < base + size,
       "x86_64: the task's stack %#x-%#x is in vmalloc space (%#x-%#x, "
       'mm.rst), and rsp is on it' % (base, base + size, *vmalloc),
       'rsp %#x' % sp)
expect(s.get('magic') == magic, "x86_64: STACK_END_MAGIC is the stack's "
       'lowest word', '%#x' % (s.get('magic') or 0))
expect(s.get('below_readable') is False and s.get('above_readable') is False,
       'x86_64: the word below the stack and the word above it cannot be '
       'read: guard pages, where an overflow faults at once',
       'below readable: %s, above readable: %s' % (s.get('below_readable'),
                                                 s.get('above_readable')))
tops = s.get('hardirq_stack_ptr') or []
expect(len(tops) == 2 and all(inside(t) for t in tops),
       "x86_64: each CPU's hardirq stack is vmapped too (hardirq_stack_ptr "
       'in vmalloc space)', ' '.join('%#x' % t for t in tops) or 'none')
expect(guest.qemu.poll() is not None,
       'x86_64: no QEMU is left after the run', 'QEMU still running')

# The overflow: lab 4's workload with its deepest descent.
with Guest('x86_64', '/labs/4/guest.sh', append='ks_mode=frames ks_n=64') as guest:
    try:
        guest.wait_exit(60)
    except GuestError as e:
        log(str(e))
    serial = guest.serial()
hit = re.search(r'BUG: TASK stack guard page was hit', serial)
rip = re.search(r'RIP: 0010:(\w+)\+', serial)
cr2 = re.search(r'CR2: ([0-9a-f]{16})', serial)
log('\n'.join(l for l in serial.splitlines() if re.search(
    r'lab 4|BUG|RIP: 0010|CR2|Kernel panic', l)))
expect(hit and rip and rip.group(1) == 'descend' and cr2 and
       vmalloc[0] <= int(cr2.group(1), 16) <= vmalloc[1],
       'x86_64: 64 frames of the descent fault at once in the guard page, in '
       'descend() itself ("BUG: TASK stack guard page was hit", the address '
       'in vmalloc space)', '%s, RIP in %s, CR2 %s' % (
           'hit' if hit else 'no guard page report',
           rip.group(1) if rip else '?', cr2.group(1) if cr2 else '?'))
