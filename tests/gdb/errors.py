# gdb side of tests/checks/62-gdb-errors.py: run the ks- commands where
# they cannot work and hand the host what each says, one "said" record
# each (its error message, or the first line it printed). The phase (what
# state the guest is brought to first) is in $KS_PHASE.
import os

import gdb

from vm.session import results
from labs.gdbutil import run

COMMANDS = ('ks-where', 'ks-irqstacks', 'ks-bt', 'ks-thread-info',
            'ks-stack-use', 'ks-stack-picture', 'ks-watch-switch',
            'p $hardirq_ctx(0)', 'p $current_thread_info(0)')

phase = os.environ['KS_PHASE']
if phase == 'start_kernel':
    run('break start_kernel')
    run('continue')
elif phase == 'running':
    run('break __handle_irq')
    run('continue')
for command in COMMANDS:
    try:
        out = run(command)
        results.emit('said', phase=phase, command=command, error=False,
                     message=(out.splitlines() or [''])[0])
    except gdb.error as e:
        results.emit('said', phase=phase, command=command, error=True,
                     message=str(e).replace('\n', ' '))
run('ks-watch-switch off')
