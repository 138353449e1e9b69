# Loaded by every lab and test session (vm/run.sh's vm_gdb): makes the
# project's gdb commands importable. The kernel's own lx-* helpers come
# from vmlinux-gdb.py next to vmlinux, through gdb's auto-load.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
