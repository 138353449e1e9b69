#!/usr/bin/env python3
"""vm/host/check-initramfs.py ARCHIVE [x86_64]: is this initramfs a guest that can start?

The programs must be i386 ones, or x86_64 ones for lab 7's guest.

Read the archive the kernel will unpack (newc cpio, as gen_init_cpio
writes it) and check, without running anything it contains (the host may
not run i386 programs at all), what the guest needs before its first
command:

- /init: a regular executable file, a static i386 program or a script
  whose "#!" line names an interpreter in the archive (the kernel runs it
  as PID 1);
- /bin/busybox: a static i386 ELF executable (no dynamic loader in the
  guest) whose applet table has the applets /init runs and the
  --install option /init uses to make the rest of the links;
- /bin/sh: a link to busybox (what guest scripts' "#!/bin/sh" and the
  kernel's fallback look for);
- /dev/console: the device the kernel opens for init's stdin and stdout.

Prints one line per problem, naming what is missing, and exits 1 if any.
"""
import re
import stat
import sys

# What vm/guest/init runs before any guest script, besides shell built-ins.
INIT_APPLETS = ['sh', 'mount', 'uname', 'nproc', 'setsid', 'cttyhack']


def read_newc(path):
    """{name: (mode, data)} of a newc cpio archive (names with a leading /)."""
    entries = {}
    data = open(path, 'rb').read()
    pos = 0
    while pos + 110 <= len(data):
        head = data[pos:pos + 110]
        if head[:6] != b'070701':
            raise ValueError('not a newc cpio archive at byte %d' % pos)
        field = [int(head[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, filesize, namesize = field[1], field[6], field[11]
        name_at = pos + 110
        name = data[name_at:name_at + namesize - 1].decode()
        body_at = (name_at + namesize + 3) & ~3
        body = data[body_at:body_at + filesize]
        pos = (body_at + filesize + 3) & ~3
        if name == 'TRAILER!!!':
            break
        entries['/' + name.lstrip('/')] = (mode, body)
    return entries


# ELF class, e_machine, and where e_phoff, e_phentsize and e_phnum lie.
ELF = {'i386': (1, 3, (28, 32), 42, 44, 'an i386 (32-bit x86)'),
       'x86_64': (2, 62, (32, 40), 54, 56, 'an x86_64')}
ARCH = 'i386'                  # the guest's; argv[2] may say x86_64


def elf_problem(body):
    """Why BODY is not a static executable for the guest, or None."""
    cls, machine, (ph, ph_end), entsize, num, what = ELF[ARCH]
    if body[:4] != b'\x7fELF':
        return 'is not an ELF file'
    if body[4] != cls or int.from_bytes(body[18:20], 'little') != machine:
        return 'is not %s program' % what
    phoff = int.from_bytes(body[ph:ph_end], 'little')
    phentsize = int.from_bytes(body[entsize:entsize + 2], 'little')
    for i in range(int.from_bytes(body[num:num + 2], 'little')):
        at = phoff + i * phentsize
        if int.from_bytes(body[at:at + 4], 'little') == 3:   # PT_INTERP
            return 'is dynamically linked (the guest has no libraries)'
    return None


def applets(body):
    """busybox's applet names: the NUL-separated table that starts "[", "[["."""
    start = body.find(b'[\0[[\0')
    names = []
    while start >= 0:
        end = body.index(b'\0', start)
        name = body[start:end]
        if not re.fullmatch(rb'[\x21-\x7e]+', name):
            break
        names.append(name.decode())
        start = end + 1
    return names


def resolve(entries, name, depth=0):
    """The entry NAME finally names, following symbolic links."""
    mode, body = entries.get(name, (None, None))
    if mode is not None and stat.S_ISLNK(mode) and depth < 8:
        target = body.rstrip(b'\0').decode()
        if not target.startswith('/'):
            target = name.rsplit('/', 1)[0] + '/' + target
        return resolve(entries, target, depth + 1)
    return name, mode, body


def problems(entries):
    found = []
    _, mode, body = resolve(entries, '/init')
    if mode is None:
        found.append('no /init (the kernel would panic: "No working init found")')
    elif not stat.S_ISREG(mode) or not mode & 0o111:
        found.append('/init is not an executable file')
    elif body.startswith(b'#!'):
        interp = (body[2:body.find(b'\n')].split() or [b''])[0].decode()
        if resolve(entries, interp)[1] is None:
            found.append('/init runs "%s", which is not in the archive' % interp)
    elif elf_problem(body):
        found.append('/init is neither a "#!" script nor a program: it %s'
                     % elf_problem(body))

    name, mode, body = resolve(entries, '/bin/busybox')
    if mode is None:
        found.append('no /bin/busybox')
    else:
        why = elf_problem(body)
        if why:
            found.append('/bin/busybox %s' % why)
        else:
            have = applets(body)
            lacking = [a for a in INIT_APPLETS if a not in have]
            if lacking:
                found.append('/bin/busybox has no applet %s' % ', '.join(lacking))
            if b'--install' not in body:
                found.append('/bin/busybox has no --install (vm/guest/init makes '
                             'its links with it)')

    if resolve(entries, '/bin/sh')[0] != '/bin/busybox':
        found.append('no /bin/sh link to /bin/busybox')
    mode = entries.get('/dev/console', (None, None))[0]
    if mode is None or not stat.S_ISCHR(mode):
        found.append('no /dev/console device')

    for name, (mode, body) in sorted(entries.items()):
        if (name.startswith('/bin/') and stat.S_ISREG(mode)
                and name != '/bin/busybox' and elf_problem(body)):
            found.append('%s %s' % (name, elf_problem(body)))
    return found


def main():
    global ARCH
    ARCH = sys.argv[2] if len(sys.argv) > 2 else 'i386'
    try:
        found = problems(read_newc(sys.argv[1]))
    except (OSError, ValueError) as e:
        found = ['cannot read the archive: %s' % e]
    for p in found:
        print('check-initramfs.py: %s: %s' % (sys.argv[1], p), file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
