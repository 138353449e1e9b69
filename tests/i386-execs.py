#!/usr/bin/env python3
"""tests/i386-execs.py STRACE_LOG...: which i386 programs did the host try to run?

Reads the logs of `strace -f -s 4096 -e trace=execve,execveat -o LOG CMD` and
prints each file the host handed to execve (whether the call worked or
failed with "Exec format error") that is a 32-bit x86 ELF. Exits 1 if
there was any: on a host without IA32 emulation each of them is a step
that fails; on one with it, a step that would fail elsewhere.
"""
import re
import sys

EXECVE = re.compile(r'execve(?:at)?\((?:[^,]*, )?"((?:[^"\\]|\\.)*)"')


def is_i386_elf(path):
    try:
        with open(path, 'rb') as f:
            head = f.read(20)
    except OSError:
        return False
    return (head[:4] == b'\x7fELF' and head[4] == 1
            and int.from_bytes(head[18:20], 'little') == 3)


def main():
    seen = set()
    for log in sys.argv[1:]:
        for line in open(log, errors='replace'):
            m = EXECVE.search(line)
            if m and m.group(1) not in seen:
                seen.add(m.group(1))
    bad = sorted(p for p in seen if is_i386_elf(p))
    for p in bad:
        print('i386 program run on the host: %s' % p)
    print('%d programs started, %d of them i386' % (len(seen), len(bad)),
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
