# Loaded by every lab and test session (vm/run.sh's vm_gdb): makes the
# project's gdb commands importable. The kernel's own lx-* helpers come
# from vmlinux-gdb.py next to vmlinux, through gdb's auto-load.
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

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
