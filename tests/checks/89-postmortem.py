# A kernel that dies explains itself. Lab 2's exercise, solved (the
# project's patches/2/0002 on the skeleton), then broken in one line at a
# time, as a learner breaks it; each graded as the learner grades it
# (vm/session/ks grade 2, EXERCISE=1), each built in seconds (only irq_32.c
# changes). The report of each must name its cause:
#   no way back     the movl %ebx,%esp after the handler left out: the
#                   CPU returns on the IRQ stack and faults; esp is just
#                   above the top of the hardirq stack
#   never stored    hardirq_stack_ptr never set: a NULL dereference in
#                   __handle_irq
#   wrong CPU       this_cpu_write() in place of per_cpu(..., cpu): CPU 1's
#                   pointer is never set, and the same death on CPU 1
#   bottom as top   esp switched to the stack's base, not its top
#   no saved esp    the bottom word never written: the kernel runs on,
#                   and the grader fails it by name
#   no nested test  no test for "already on the hardirq stack": the
#                   grader's nested call (gdb makes it) names it
#   from user mode  switched even when the interrupt came from user mode
#                   (the task stack is empty then): the grader names it
#   endless loop    the handler never returns: a hang, each CPU's place
#   triple fault    an IDT that holds nothing, loaded before the console
#                   is up: the guest resets without a word
# and `make lab N=2 EXERCISE=1` on "never stored" and "wrong CPU" leaves
# gdb at the death, where bt shows __handle_irq, ks-where speaks of no
# early boot, and the kernel's words begin with the line make grade
# quoted; and `make replay N=2 EXERCISE=1` on "never stored" opens gdb at
# the death, where reverse-continue to the page fault's entry stops at the
# instruction the report named, or at the entry, whose pushed EIP it is;
# there ks-who-wrote without a word says what to give it, and continue
# stops at the end of the recording, where reverse-stepi works. The tree is check 88's
# (build/exercise-check), reset to the skeleton with git each run.
import os
import re
import subprocess

from tests.checklib import BUILD, TOP, expect, exercises_in, facts, fit, ks
from vm.session import exercise

exercises_in('exercise-check')

IRQ = 'arch/x86/kernel/irq_32.c'


# What the replay check types at the death of "never stored": back to the
# page fault's entry, then which instruction faulted (where gdb stopped,
# or at the entry, the EIP the CPU pushed above the error code).
ENTRY_BACK = b'''break asm_exc_page_fault
reverse-continue
python f = int(gdb.parse_and_eval('$pc'))
python entry = gdb.selected_frame().name() == 'asm_exc_page_fault'
python f = int(gdb.parse_and_eval('((unsigned long *)$sp)[1]')) if entry else f
python print('==stopped in %s; the faulting instruction: %#x' % (gdb.selected_frame().name(), f))
python gdb.execute('info symbol %#x' % f)
ks-who-wrote
delete
continue
reverse-stepi
python print('==after reverse-stepi: %#x' % int(gdb.parse_and_eval('$pc')))
'''

# name: (the solution's line(s), what the learner wrote instead)
BROKEN = {
    'no way back': ('\t\t     CALL_NOSPEC\n\t\t     "movl\t%%ebx,%%esp\t\\n"\n'
                    '\t\t     : "=a" (arg1)',
                    '\t\t     CALL_NOSPEC\n\t\t     : "=a" (arg1)'),
    'never stored': ('\tper_cpu(hardirq_stack_ptr, cpu) = page_address(ph);\n', ''),
    'bottom as top': ('\tisp = (u32 *) ((char *)irqstk + sizeof(*irqstk));\n',
                      '\tisp = (u32 *) irqstk;\n'),
    'wrong CPU': ('\tper_cpu(hardirq_stack_ptr, cpu) = page_address(ph);\n',
                  '\tthis_cpu_write(hardirq_stack_ptr, page_address(ph));\n'),
    'no saved esp': ('\t*prev_esp = current_stack_pointer;\n', ''),
    'no nested test': ('\tif (unlikely(curstk == irqstk))\n\t\treturn 0;\n', ''),
    'from user mode': ('\tif (user_mode(regs) || !execute_on_irq_stack(overflow, desc)) {\n',
                       '\tif (!execute_on_irq_stack(overflow, desc)) {\n'),
    'endless loop': ('\t*prev_esp = current_stack_pointer;\n',
                     '\t*prev_esp = current_stack_pointer;\n\twhile (irqstk)\n'
                     '\t\tcpu_relax();\n'),
    'triple fault': ('\tint node = cpu_to_node(cpu);\n',
                     '\tint node = cpu_to_node(cpu);\n'
                     '\tstatic const u16 no_idt[3];\n\n'
                     '\tasm volatile("lidt %0\\n\\tud2" : : "m" (no_idt));\n'),
}

# name: regular expressions the grade's output must hold: the kernel's
# first words (or the hang), the function and file:line, the stack.
EXPECT = {
    'no way back': [r'BUG: unable to handle page fault',
                    r'bytes ABOVE the top of CPU \d\'s hardirq stack'],
    'never stored': [r'BUG: kernel NULL pointer dereference',
                     r'faulted at EIP 0x[0-9a-f]+: __handle_irq\+\d+, .*'
                     r'\(arch/x86/kernel/irq_32\.c:\d+\)',
                     r'esp was 0x[0-9a-f]+, on the task stack of pid',
                     r"CPU 0 is online, but its hardirq_stack_ptr is NULL"],
    # Run on the CPU that brings CPU 1 up, this_cpu_write() stores CPU 1's
    # stack in CPU 0's pointer: CPU 1's stays NULL, long after boot.
    'wrong CPU': [r'BUG: kernel NULL pointer dereference',
                  r"CPU 1 is online, but its hardirq_stack_ptr is NULL"],
    # It writes below the stack's page: the kernel may die of it, or
    # run on, when the grader's check of the switch names it.
    'bottom as top': [r'not ok - CPU \d, __handle_irq: the xchg moves esp to '
                      r'the top|bytes BELOW the bottom of CPU \d\'s hardirq stack'],
    'no saved esp': [r'not ok - .*bottom word'],
    'from user mode': [r'not ok - an interrupt from user mode is not switched'],
    'no nested test': [r'not ok - CPU 0: an interrupt that finds the CPU on its '
                       r'hardirq stack already is not switched again'],
    'endless loop': [r'the guest hung',
                     r'CPU \d: \$sp 0x[0-9a-f]+ is on',
                     r'at EIP 0x[0-9a-f]+: .*__handle_irq.*\(arch/x86/.*:\d+\)'],
    'triple fault': [r'triple-faulted',
                     r'irq_init_percpu_irqstack.*arch/x86/kernel/irq_32\.c:\d+'],
}
TIMEOUT = {'endless loop': '20'}


def keep(name, out):
    """A report for the workbook's exercises chapter."""
    results = os.path.join(BUILD, 'results')
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, 'postmortem-%s.txt' % name.replace(' ', '-')),
              'w') as f:
        f.write('\n'.join(['$ make grade N=2 EXERCISE=1'] + fit(
            l for l in out.splitlines() if not l.startswith('['))) + '\n')


def first_words(out):
    """The first line of the kernel's words a report quotes, or None."""
    m = re.search(r"[Tt]he kernel's words(?: before it)?:\n\s*(.*)", out)
    return m.group(1).strip() if m else None


rc, out = 0, ''
if exercise.stale(2):
    # As check 88 does: a tree from an older skeleton is made again.
    subprocess.call(['rm', '-rf', os.path.dirname(exercise.tree(2))])
try:
    src = exercise.make(2)
except Exception as e:      # GuestError: the step's own words
    src, out = None, str(e)
if expect(src, 'lab 2\'s exercise tree is there', out):
    exercise.git(src, 'checkout', '-q', '-f', 'skeleton')
    exercise.git(src, 'clean', '-fdq')
    for patch in facts.lab(2)['exercise']['solution']:
        exercise.apply(src, os.path.join(TOP, patch))
    with open(os.path.join(src, IRQ)) as f:
        solved = f.read()
    for name, (right, wrong) in BROKEN.items():
        if not expect(right in solved, '%s: the solution has the line the '
                      'learner gets wrong' % name, right):
            continue
        with open(os.path.join(src, IRQ), 'w') as f:
            f.write(solved.replace(right, wrong, 1))
        rc, out, took = ks('grade', 2, env={'KS_GRADE_TIMEOUT': TIMEOUT.get(name, '120')})
        missing = [p for p in EXPECT[name] if not re.search(p, out)]
        left = subprocess.run(['pgrep', '-f', 'qemu-system-i386.*exercise-check'],
                              stdout=subprocess.PIPE).stdout.decode().split()
        expect(rc != 0 and not missing and not left,
               '%s: make grade fails, naming the cause (%s), no QEMU left (%.0f s)'
               % (name, ', '.join(EXPECT[name]), took),
               'exit %d, missing %s, QEMUs %s' % (rc, missing, left))
        keep(name, out)
        graded_out = out
        if name in ('never stored', 'wrong CPU'):
            graded = first_words(out)
            # The learner's lab: gdb stops at the death; bt from there.
            rc, out, took = ks('lab', 2, stdin=b'bt\nks-where\nquit\n', env={'AHEAD': '0'})
            left = subprocess.run(['pgrep', '-f', 'qemu-system-i386.*exercise-check'],
                                  stdout=subprocess.PIPE).stdout.decode().split()
            expect(rc != 0 and re.search(r'#\d+ .*__handle_irq', out) and
                   'the kernel died' in out and 'is on' in out and not left,
                   '%s: make lab N=2 EXERCISE=1 stops in gdb at the '
                   'death, where bt shows __handle_irq and ks-where works; '
                   'quit leaves no QEMU' % name, out[-600:] + ' QEMUs %s' % left)
            expect(graded and first_words(out) == graded and 'early boot' not in out,
                   '%s: make lab quotes the kernel\'s first words as make grade did '
                   '("%s"), and nothing speaks of early boot' % (name, graded),
                   'make lab: "%s"%s' % (first_words(out), ', and "early boot"'
                                          if 'early boot' in out else ''))
        if name == 'never stored':
            # Back from the death by replay: reverse-continue to the page
            # fault's entry. QEMU stops either at the instruction that
            # faulted (the entry's instruction count is the same: the
            # faulting one never retired) or at the entry itself, where
            # the CPU pushed the faulting EIP above the error code; which
            # one differs between recordings, and both name it.
            eip = re.search(r'faulted at EIP (0x[0-9a-f]+): (\S+)', graded_out)
            rc, out, took = ks('replay', 2, stdin=ENTRY_BACK)
            at = re.search(r'==stopped in (\w+); the faulting instruction: (0x[0-9a-f]+)\n'
                           r'(?:\(gdb\) )*(\w+) \+ (\d+) in section', out)
            left = subprocess.run(['pgrep', '-f', 'qemu-system-i386.*rr=re'],
                                  stdout=subprocess.PIPE).stdout.decode().split()
            expect(eip and at and 'the kernel died' in out and at.group(2) == eip.group(1) and
                   at.group(1) in ('asm_exc_page_fault', '__handle_irq', 'execute_on_irq_stack') and
                   '%s+%s' % at.group(3, 4) == eip.group(2).rstrip(',') and not left,
                   '%s: make replay N=2 EXERCISE=1 opens gdb at the death; reverse-continue '
                   'to the page fault\'s entry stops at the faulting instruction the '
                   'report named (%s), or at the entry, whose pushed EIP is it; no QEMU '
                   'left (%.0f s)' % (name, eip and eip.group(2).rstrip(','), took),
                   '%s, QEMUs %s' % (at and at.groups(), left))
            # ks-who-wrote with no word to watch: a NULL pointer was used,
            # and it says what to give it instead; then continue runs to
            # the end of the recording, which is a stop, and one step
            # back from there works.
            expect('died of a NULL pointer dereference' in out and
                   'give ks-who-wrote the address of the pointer' in out and
                   'Python Exception' not in out,
                   '%s: in its replay, ks-who-wrote with no argument says what to give '
                   'it (a NULL dereference names no word), with no Python exception'
                   % name, out[-1500:])
            expect('ks: the end of the recording' in out and
                   'does not support this command' not in out and
                   re.search(r'==after reverse-stepi: 0x[0-9a-f]+', out),
                   '%s: continue runs to the end of the recording, a stop where '
                   'reverse-stepi works' % name, out[-1500:])
    with open(os.path.join(src, IRQ), 'w') as f:
        f.write(solved)
