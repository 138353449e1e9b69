# Symbols for the lab modules (vm/guest/modules/, built per stage into
# build/stage-K/modules/src next to the stage's obj folder), so that
# `break frames_write`, bt and ks-bt name their functions.
#
# The kernel's lx-symbols would do it, but it reloads vmlinux with
# symbol-file, which drops the 2.6 names (oldnames.py). This adds only the
# lab modules: those already loaded when gdb attaches, and each one the
# guest loads later (a silent breakpoint in do_init_module, as lx-symbols
# sets). The section addresses come from the kernel helper's own code.
import os

import gdb

from kstack import stacks

try:
    from linux import modules, symbols
except ImportError:
    modules = symbols = None


def _folder():
    # The session names the kernel's folder (KS_STAGE_DIR): an exercise
    # folder may be reached through a link, and gdb knows only the real
    # path of vmlinux. Else beside that vmlinux's obj/.
    where = os.environ.get('KS_STAGE_DIR')
    obj = stacks.obj_folder()
    where = where or (obj and os.path.dirname(obj))
    path = where and os.path.join(where, 'modules', 'src')
    return path if path and os.path.isdir(path) else None


def add_module(mod):
    name = mod['name'].string()
    path = os.path.join(_folder() or '', name.replace('-', '_') + '.ko')
    if not os.path.exists(path):
        return
    base = int(mod['core_layout']['base'])
    sections = symbols.LxSymbols._section_arguments(None, mod)
    gdb.execute('add-symbol-file %s %#x%s' % (path, base, sections),
                to_string=True)


class ModuleLoaded(gdb.Breakpoint):
    def __init__(self):
        super(ModuleLoaded, self).__init__('do_init_module', internal=True)
        self.silent = True

    def stop(self):
        try:
            add_module(gdb.parse_and_eval('mod'))
        except gdb.error as e:
            gdb.write('gdb-scripts: no symbols for a lab module: %s\n' % e)
        return False


if symbols is not None and _folder() is not None:
    try:
        for loaded in modules.module_list():
            add_module(loaded)
    except gdb.error:
        pass                 # not readable yet (gdb attached at reset)
    ModuleLoaded()
