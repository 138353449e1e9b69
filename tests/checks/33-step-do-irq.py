# Stepping through do_IRQ as the workbook teaches it (chapter "Lab 3",
# gdb-scripts/stepirq.py), on every stage with IRQ stacks: from lab 3's
# stop at do_IRQ (6.1's common_interrupt), at an interrupt of kernel code
# on a task stack,
# - one `next` stays inside the interrupt: it stops in __common_interrupt,
#   with common_interrupt still on the stack (without help gdb runs the
#   whole macro line and stops in the entry code, the interrupt over);
# - repeated `step` reaches __handle_irq, then the line of the xchg onto
#   the hardirq stack, within 12 commands, every stop on the way inside
#   the interrupt; and the xchg, one stepi (up to 3 if a stepi runs no
#   instruction: labs/gdbutil.stepi_off), really moves esp from the
#   interrupted task's stack to the top of this CPU's hardirq stack.
# The steps are tests/gdb/step_irq.py's records.

from tests.checklib import Guest, expect, facts, probe, record, records, stages
from vm.session.session import lab_scripts

LAB = 3
STEPS = 12
lab = facts.lab(LAB)

for k in stages():
    stage = facts.stage(k)
    if not stage['hardirq_stacks']:
        continue
    with Guest(k, lab['guest_path'], halted=True) as guest:
        run = probe(guest, 'step_irq.py', 240, args=lab_scripts(lab))

    def report(good, what, got=None):
        expect(good, 'stage %d: %s' % (k, what), got)

    after_next = (record(run, 'next') or {}).get('frames', [])
    report(after_next[:1] == ['__common_interrupt'] and 'common_interrupt' in after_next,
           'one `next` from do_IRQ stops in __common_interrupt, inside the interrupt',
           ' <- '.join(after_next) or 'no record')

    steps = records(run, 'step')
    log = ['%d: %s %s' % (s['n'], s['frames'][0], s['line']) for s in steps]
    first = next((s['n'] for s in steps if '__handle_irq' in s['frames']), None)
    report(first is not None and first <= STEPS,
           '`step` reaches __handle_irq within %d commands (in %s)' % (STEPS, first),
           '; '.join(log) or 'no steps')
    switch = next((s['n'] for s in steps if s['at_switch']), None)
    report(switch is not None and switch <= STEPS,
           '`step` reaches the xchg onto the hardirq stack within %d commands '
           '(in %s)' % (STEPS, switch), '; '.join(log) or 'no steps')
    outside = [s for s in steps if 'common_interrupt' not in s['frames']]
    report(steps and not outside, 'every step stops inside the interrupt '
           '(common_interrupt on the stack)', '; '.join(
               '%d: %s' % (s['n'], ' <- '.join(s['frames'])) for s in outside))
    sw = record(run, 'switch') or {}
    ts, hard = stage['thread_size'], sw.get('hardirq')
    report(sw and sw['task_stack'] <= sw['before'] < sw['task_stack'] + ts
           and hard is not None and hard < sw['after'] <= hard + ts,
           'the xchg moves esp from the task stack (%#x) onto CPU %s\'s '
           'hardirq stack (%#x)' % (sw.get('task_stack', 0), sw.get('cpu'), hard or 0),
           'esp %#x -> %#x, %s' % (
               sw.get('before', 0), sw.get('after', 0),
               'stepi %d ran the xchg' % sw['stepis'] if sw.get('stepis')
               else 'no stepi left the xchg') if sw else 'no switch')
