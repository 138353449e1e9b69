# Run the ks- commands where they cannot work and print what each says,
# one "said COMMAND: MESSAGE" line each, for tests/checks/62-gdb-errors.sh.
# Sourced by gdb in batch mode; the phase (what state the guest is in) is
# in $ks_phase, set by the check with -ex before this file runs.
import gdb

COMMANDS = ('ks-where', 'ks-irqstacks', 'ks-bt', 'ks-thread-info',
            'ks-stack-use', 'ks-stack-picture', 'ks-watch-switch',
            'p $hardirq_ctx(0)', 'p $current_thread_info(0)')


def say_all():
    for command in COMMANDS:
        try:
            out = gdb.execute(command, to_string=True)
            print('said %s: (no error) %s' % (command, out.splitlines()[:1]))
        except gdb.error as e:
            print('said %s: %s' % (command, str(e).replace('\n', ' ')))
    gdb.execute('ks-watch-switch off', to_string=True)


phase = gdb.convenience_variable('ks_phase').string()
if phase == 'start_kernel':
    gdb.execute('break start_kernel', to_string=True)
    gdb.execute('continue', to_string=True)
elif phase == 'running':
    gdb.execute('break __handle_irq', to_string=True)
    gdb.execute('continue', to_string=True)
print('phase %s' % phase)
say_all()
