# Loaded by every gdb on a guest (vm/session/session.py's Guest.gdb_argv):
# makes the project's gdb commands importable (the kstack package, here),
# and the host's packages gdb-side code shares, from the top of the
# checkout (vm.session.facts, vm.session.results, labs.gradelib). The kernel's own lx-* helpers come
# from vmlinux-gdb.py next to vmlinux, through gdb's auto-load.
import os
import sys

import gdb

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path[:0] = [HERE, TOP]

try:
    import linux  # noqa: F401  (the kernel's helpers, from vmlinux-gdb.py)
except ImportError:
    gdb.write('gdb-scripts: the kernel\'s lx-* helpers are not loaded '
              '(is vmlinux-gdb.py next to vmlinux, and its folder in the '
              'auto-load safe path?); ks- commands will say so.\n')
import kstack  # noqa: F401,E402  (registers the ks- commands either way)

# task_struct.comm is a char[16] padded with NULs: print it up to the first
# one ("swapper/0"), as the kernel reads it, not with the padding.
gdb.execute('set print null-stop on')
