# kstack: the project's gdb commands and functions (prefix ks-, $ks_...).
# Built on the kernel's own helpers from scripts/gdb (the "linux" package,
# loaded by vmlinux-gdb.py next to vmlinux). Each module registers its
# commands when imported; the class docstring is the help text.
from kstack import (death, frames, irqstacks, lxfixes, modsyms, oldnames,  # noqa: F401
                    picture, switch, threadinfo, usage, where, whowrote)
