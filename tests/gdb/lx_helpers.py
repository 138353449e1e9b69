# gdb side of tests/checks/64-lx-helpers.py: every lx- command and $lx_
# function of the kernel's own gdb helpers (scripts/gdb, 6.1), at a stop
# in process context with a module loaded (tests/guest/lx.sh: cat
# /proc/version after insmod). The lists come from gdb itself ("help
# all", "help function"), so a helper the kernel adds is run too; the
# arguments for those that need one are below.
#
# Emits one "lx-found" record (how many of each), then one "lx" record per
# helper: name, status ok, failed or absent, and why. "absent" is for
# hardware a PC has not (device tree, common clock framework, generic
# power domains): allowed only when the running kernel's own config, as
# lx-configdump writes it (into the run folder), lacks that option.
import os
import re

import gdb

from vm.session import results

CONFIG = os.path.join(os.environ['KS_RUN'], 'lx-config.txt')

COMMANDS = {
    'lx-configdump': CONFIG,
    'lx-list-check': 'init_task.tasks',
    'lx-device-list-tree': '&platform_bus',
}
FUNCTIONS = {
    'container_of': '($lx_task_by_pid(1)->tasks.next, "struct task_struct", "tasks")',
    'lx_current': '()',
    'lx_device_find_by_bus_name': '("platform", "serial8250")',
    'lx_device_find_by_class_name': '("tty", "ttyS0")',
    'lx_module': '("stackdeep")',
    'lx_per_cpu': '("current_task", 1)',
    'lx_rb_first': '(vmap_area_root)',
    'lx_rb_last': '(vmap_area_root)',
    'lx_rb_next': '($lx_rb_first(vmap_area_root))',
    'lx_rb_prev': '($lx_rb_last(vmap_area_root))',
    'lx_task_by_pid': '(1)',
    'lx_thread_info': '($lx_task_by_pid(1))',
    'lx_thread_info_by_pid': '(1)',
    'lx_clk_core_lookup': '("none")',
}
# What a helper needs that an i386 PC does not have.
NEEDS = {
    'lx-fdtdump': 'CONFIG_OF',
    'lx-clk-summary': 'CONFIG_COMMON_CLK',
    'lx_clk_core_lookup': 'CONFIG_COMMON_CLK',
    'lx-genpd-summary': 'CONFIG_PM_GENERIC_DOMAINS',
}

gdb.execute('break version_proc_show')
gdb.execute('continue')


def names(help_text, pattern):
    return sorted(set(re.findall(pattern, help_text, re.M)))


commands = names(gdb.execute('help all', to_string=True), r'^(lx-[\w-]+) --')
functions = names(gdb.execute('help function', to_string=True),
                  r'^function ((?:lx_\w+|container_of)) --')
outcome = {}
for name in commands:
    try:
        out = gdb.execute('%s %s' % (name, COMMANDS.get(name, '')), to_string=True)
        outcome[name] = None if out.strip() else 'printed nothing'
    except gdb.error as e:
        outcome[name] = str(e).splitlines()[0] if str(e) else 'error'
for name in functions:
    try:
        v = gdb.parse_and_eval('$%s%s' % (name, FUNCTIONS.get(name, '()')))
        str(v)                           # fetch it: a bad pointer shows here
        outcome[name] = None
    except gdb.error as e:
        outcome[name] = str(e).splitlines()[0] if str(e) else 'error'

config = open(CONFIG).read() if os.path.exists(CONFIG) else ''
results.emit('lx-found', commands=len(commands), functions=len(functions))
for name, why in sorted(outcome.items()):
    need = NEEDS.get(name)
    if why is None:
        results.emit('lx', name=name, status='ok')
    elif need and config and ('%s=y' % need) not in config:
        results.emit('lx', name=name, status='absent', why=why, needs=need)
    else:
        results.emit('lx', name=name, status='failed', why=why)
