# Lab 3's hints all do what they say: from the lab's stop (labs/3/lab.toml,
# as make lab runs it), tests/gdb/lab3_hints.py follows the menu, hint by
# hint, and here each hint's output must show what the menu promises.
# Every hint of the menu must have a promise below: a new hint without
# one fails. The stop, the walk and the overflow are stage 3's (lab 3's
# stage, from labs/3/lab.toml).
import re

from tests.checklib import Guest, expect, facts, log, probe, records
from vm.session.session import lab_scripts

LAB = 3
lab = facts.lab(LAB)
stage = lab['stage_facts']
WARN = stage['warning_line']

# hint: (what the menu says it shows, regular expressions its output must
# all match, regular expressions its stops must all match: one line
# "function: source line" per command that ran the guest)
PROMISES = {
    'p sizeof(init_stack)': ('THREAD_SIZE: %d' % stage['thread_size'],
                             [r'= %d\n' % stage['thread_size']], []),
    'ks-where': ('the room left below $sp, and the warning line',
                 [r'\$sp 0x[0-9a-f]+ is on ', r'\d+ used, \d+ free',
                  r'above the warning line; the line is %d bytes above the '
                  r'stack\'s bottom' % WARN], []),
    'ks-thread-info': ("2.6's sp & ~(THREAD_SIZE-1), and 6.1's",
                       [r'2\.6: thread_info = sp & ~\(THREAD_SIZE-1\) = 0x',
                        r'6\.1: thread_info = &task->thread_info'], []),
    'ks-stack-picture': ('this stack, drawn, with the warning line',
                         [r'\+-+\+ top', r'<- \$sp',
                          r'warning line \(%d above the bottom\)' % WARN], []),
    'ks-stack-use': ('how close every stack has come to its end',
                     [r'below warning line\?', r'hardirq cpu0', r'task \d+ '], []),
    'step': ('until line 100, the asm with the xchg, in ten steps: '
             '__common_interrupt, handle_irq, __handle_irq, the check, the asm', [],
             [r'^__common_interrupt: handle_irq\(desc, regs\);$',
              r'^handle_irq: __handle_irq\(desc, regs\);$',
              r'^__handle_irq: int overflow = check_stack_overflow\(\);$',
              r'^execute_on_irq_stack: ',
              r'execute_on_irq_stack: asm volatile\("xchgl\t%%ebx,%%esp\t\\n"\Z']),
    'x/5i $pc': ('at line 100: stepi to the xchg, ks-where on the task stack, stepi, '
                 'ks-where on the hardirq stack',
                 [r'=> 0x[0-9a-f]+ <__handle_irq\+\d+>:\txchg   %ebx,%esp\n'
                  r'CPU \d: \$sp 0x[0-9a-f]+ is on the task stack of pid \d+'
                  r'(.*\n)*CPU \d: \$sp 0x[0-9a-f]+ is on CPU \d\'s hardirq stack'], []),
    'tbreak do_IRQ': ('then continue: the next interrupt', [],
                      [r'^common_interrupt: DEFINE_IDTENTRY_IRQ\(common_interrupt\)\Z']),
    'break print_stack_overflow': ('continue: the IRQ-entry check fired', [],
                                   [r'^print_stack_overflow: ']),
    'ks-irqstacks': ('the saved esp: how little room was left',
                     [r'\d+\s+hardirq\s+\S+\s+yes\s+0x[0-9a-f]+\s+task \d+ dd'], []),
    'ks-bt': ('the recursion (descend) under the interrupt',
              [r'print_stack_overflow', r'descend\+'], []),
    'finish': ("then lx-dmesg: the kernel's report",
               [r'low stack detected by irq handler'],
               [r'^(?!print_stack_overflow)\w+: ']),
    'delete / quit': ('no breakpoints left; quit ends gdb',
                      [r'No breakpoints or watchpoints'], []),
}

# Lab 3's workload now and then ends the guest by chance (lab.toml's
# guest_may_die; labs/3/guest.sh says why): as make grade does, the walk
# is made once more on a fresh guest if the guest ended during it.
for attempt in (1, 2):
    with Guest(lab['stage'], lab['guest_path'], halted=True, keep_dead=True) as guest:
        run = probe(guest, 'lab3_hints.py', 300, args=lab_scripts(lab))
    if not (run.rc == 3 and lab['guest_may_die'] and attempt == 1):
        break
    log('the guest ended during the walk (guest_may_die): once more on a fresh guest')

hints = records(run, 'hint')
expect(hints, 'lab 3\'s menu has hints, each followed from the lab\'s stop',
       'no records (gdb exit %s)' % run.rc)
for h in hints:
    promise = PROMISES.get(h['hint'])
    if promise is None:
        expect(False, 'lab 3\'s hint "%s" has a promise in this check' % h['hint'],
               'none: add one to PROMISES')
        continue
    says, out, stop = promise
    stops = '\n'.join('%s: %s' % (f, line) for f, line in h['stops'])
    missing = ([p for p in out if not re.search(p, h['output'])] +
               [p for p in stop if not re.search(p, stops, re.M)])
    expect(not missing and 'error' not in h,
           'lab 3\'s hint "%s" shows %s' % (h['hint'], says),
           h.get('error') or 'no match for %s in: %s' % (
               missing, (h['output'][-500:] + ' || stops: ' + stops).replace('\n', ' | ')))
expect(run.rc == 0 and hints and hints[-1]['hint'] == 'delete / quit',
       'quit, the last hint, ends gdb (exit 0)', 'exit %s' % run.rc)
