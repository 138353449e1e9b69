"""What a dead kernel said, read on the host from its console log.

Every session's Guest.explain() uses it, with or without gdb attached:

- kernel_words(): the kernel's first BUG/Oops/panic line and the lines of
  its account worth repeating (the registers, the call trace, the panic
  line), however much it printed after them;
- decode(): addresses and "function+0x30/0x76" entries as function and
  file:line of the kernel that ran, by gdb on its vmlinux (the same
  DWARF a lab's gdb reads; no decoder of our own).

When gdb was attached, the gdb side (gdb-scripts/kstack/death.py) has
already written a fuller report to the run folder, postmortem.txt,
with the stack esp was on: explain() prints that instead.
"""
import os
import re
import subprocess

from vm.session import facts

# The first line of the kernel's own account of a death.
FIRST = re.compile(r'(BUG: .*|Oops: .*|general protection fault.*|'
                   r'kernel BUG at .*|double fault.*|Kernel panic - .*)')
# The lines after it that a post-mortem repeats: registers, call trace,
# the panic line.
KEEP = re.compile(r'^(#PF: |EIP: |EAX: |ESI: |DS: |CR0: |CR2: |Call Trace:|'
                  r' *<(/?IRQ|/?SOFTIRQ|TASK)>| [? ]*[A-Za-z_0-9.]+\+0x|'
                  r'Kernel panic - |Thread overran)')
TIME = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')
# Paths in DWARF are those of the tree the kernel was built in; a kernel
# developer quotes them from the tree's top.
TREE_PATH = re.compile(r'^.*?/(?:src/linux|src)/(?=[a-z0-9_-]+/)')


def kernel_words(text, limit=24):
    """The death's lines of console TEXT: its first BUG/Oops/panic line,
    then up to LIMIT of the lines worth repeating; [] if it has none."""
    lines = [TIME.sub('', l) for l in text.replace('\r', '').split('\n')]
    for i, line in enumerate(lines):
        if FIRST.search(line):
            return [line] + [l for l in lines[i + 1:] if KEEP.search(l)][:limit]
    return []


def tree_path(filename):
    return TREE_PATH.sub('', filename)


def trace_entries(words):
    """'function+0x30/0x76' of an oops's EIP line and call trace."""
    found = []
    for line in words:
        if line.startswith(('EIP: ', ' ')):
            m = re.search(r'([A-Za-z_][A-Za-z_0-9.]*)\+(0x[0-9a-f]+)/0x[0-9a-f]+', line)
            if m and (m.group(1), m.group(2)) not in found:
                found.append((m.group(1), m.group(2)))
    return found


def decode(vmlinux, entries):
    """{(function, offset): 'function+offset (file:line)'} for ENTRIES, by
    one gdb run on VMLINUX. A return address in a call trace is looked
    up one byte back, inside the call."""
    if not entries or not os.path.isfile(vmlinux):
        return {}
    args = []
    for fn, off in entries:
        args += ['-ex', 'echo @@%s+%s\\n' % (fn, off),
                 '-ex', 'info line *(%s+%s-1)' % (fn, off)]
    try:
        p = subprocess.run([facts.host()['gdb'], '-q', '-nx', '-batch', vmlinux] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found, key = {}, None
    for line in p.stdout.decode(errors='replace').split('\n'):
        if line.startswith('@@'):
            key = tuple(line[2:].split('+', 1))
            continue
        m = re.match(r'Line (\d+) of "([^"]+)"', line)
        if key and m:
            found[key] = '%s+%s (%s:%s)' % (key[0], key[1], tree_path(m.group(2)),
                                            m.group(1))
            key = None
    return found


def report(serial_text, vmlinux):
    """Lines for a learner: the kernel's words, then its EIP and call
    trace as file:line; [] if the log holds no death."""
    words = kernel_words(serial_text)
    if not words:
        return []
    lines = ["  the kernel's words:"] + ['    ' + w for w in words]
    decoded = decode(vmlinux, trace_entries(words))
    if decoded:
        lines.append('  as source lines (%s):' % os.path.relpath(vmlinux))
        lines += ['    ' + d for d in decoded.values()]
    return lines
