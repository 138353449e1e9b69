# Grader of lab 6 (stage 2): a post-mortem. Run by vm/session/ks (make grade N=6)
# on the host, not in gdb: it starts crash once on the lab's dump
# (vm/session/crash.py, which makes the dump if needed), asks it the lab's
# commands (labs/6/crash.cmds), then rd at the stack they found, keeps
# crash's output in build/run/lab6-crash.log,
# and checks what crash shows. vm/session/ks compares the learner's answers
# (pad_offset) and predictions (bt_follows, cpus, magic_intact) with this
# run's.
import atexit
import os
import re

from vm.session import crash
from vm.session import facts
from labs.gradelib import (answer, expect, expect_in, expect_true,
                           lab_number, run_tests, test)
from vm.session.session import BUILD

LAB = facts.lab(lab_number())
WARN = LAB['stage_facts']['warning_line']
MAGIC = facts.kernel()['stack_end_magic']
LOG = os.path.join(BUILD, 'run', 'lab6-crash.log')
CRASH = {}         # crash's output: 'text', and by section
# The lab's walk of the task list (crash.cmds: list -o task_struct.tasks
# -s task_struct.comm,pid -h init_task) prints each member through
# crash's gdb, about 0.15 s a member and a task under qemu-i386: 7 s of
# the grade. The grader walks the same list for its addresses alone, then
# reads each task's comm with rd at the offset crash's own table gives
# (help -o), which costs no gdb.
WALK = 'list -o task_struct.tasks -h init_task'


def sections(text):
    """{NAME: the output of the command after "echo ==== NAME"}."""
    found, name = {}, None
    for line in text.splitlines():
        if line.startswith('==== '):
            name = line[5:]
            found[name] = []
        elif name is not None:
            found[name].append(line)
    return {k: '\n'.join(v) for k, v in found.items()}


def value(key):
    """What sys prints after "KEY:" (the first such line), or None."""
    m = re.search(r'^ *%s: *(.*)$' % key, CRASH['text'], re.M)
    return m.group(1) if m else None


def section(name):
    return CRASH['sections'].get(name, '')


def seen(what):
    """WHAT, and where crash's output is to read it whole."""
    return '%s (crash\'s output: %s)' % (what, LOG)


@test("crash opens the dump and runs the lab's commands")
def crash_run():
    with open(os.path.join(LAB['folder'], 'crash.cmds')) as f:
        commands = [WALK if c.startswith('list ') else c for c in f.read().splitlines()]
    commands += ['echo ==== offsets', 'help -o']
    # The dump of the learner's variant (lab.toml: its frame size).
    session = crash.Session(LAB['stage'], append=LAB['append'])
    atexit.register(session.close)
    CRASH['session'] = session
    text = session.ask(commands)
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, 'w') as f:
        f.write(text)
    CRASH.update(text=text, sections=sections(text))
    wanted = [c[len('echo ==== '):] for c in commands if c.startswith('echo ==== ')]
    missing = [w for w in wanted if w not in CRASH['sections']]
    expect_true(not missing, seen('the sections of crash\'s output'),
                ', '.join(wanted), 'no ' + ', '.join(missing))
    return LOG


@test("crash's sys names the panic", parent=crash_run)
def panic():
    said = value('PANIC')
    expect_true(said and 'low stack detected by irq handler' in said,
                seen('sys: PANIC'), '"...low stack detected by irq handler..."',
                said or 'none')
    return said


@test('bt shows the panicking task', parent=crash_run)
def panic_task():
    m = re.search(r'^PID: *\d+ *TASK: [0-9a-f]* *CPU: \d+ *COMMAND: "(.*)"',
                  CRASH['text'], re.M)
    task = expect(m.group(1) if m else 'none', 'dd', seen('bt\'s COMMAND'))
    return task


@test("bt -T finds the recursing function on dd's stack", parent=crash_run)
def bt_t():
    # bt itself stops on the hardirq stack (see the README): does it reach
    # dd's recursion?
    answer('bt_follows', 'yes' if ' descend at ' in section('bt') else 'no')
    frames = section('bt -T').count(' descend at ')
    expect_true(frames >= 10, seen('descend return addresses in bt -T'),
                'at least 10', frames)
    return '%d descend return addresses' % frames


# The overflowed stack itself: task gives its lowest address, rd (asked
# of the same crash once task has answered: a command cannot take a value
# from an earlier one) its lowest 2 KB. STACK_END_MAGIC must still be there (the check panicked before
# anything ran off the end) and descend's 0x5a bytes lie within the IRQ-
# entry check's line above it (the stage's warning_line, vm/stages.toml).
@test("rd at dd's stack: the end magic is intact", parent=crash_run)
def end_magic():
    m = re.search(r'^ *stack = (0x[0-9a-f]+),?$', section('task'), re.M)
    expect_true(m, seen('task -R stack'), 'stack = 0x...', section('task').strip())
    stack = int(m.group(1), 16)
    text = CRASH['session'].ask(['echo ==== rd', 'rd %#x 512' % stack])
    with open(LOG, 'a') as f:
        f.write(text)
    rows = [line.split() for line in sections(text).get('rd', '').splitlines()
            if re.match(r'[0-9a-f]+:', line)]
    expect_true(rows, seen('rd %#x 512' % stack), 'lines of words',
                text.strip()[-300:] or 'nothing')
    expect(int(rows[0][0].rstrip(':'), 16), stack, seen('rd\'s first address'))
    answer('magic_intact', 'yes' if int(rows[0][1], 16) == MAGIC else 'no')
    expect(int(rows[0][1], 16), MAGIC, seen('the word at dd\'s stack\'s end'))
    CRASH.update(stack=stack, rows=rows)
    return '%#x: %s' % (stack, rows[0][1])


@test("descend's 0x5a bytes begin within the IRQ-entry check's line above "
      "the stack's end", parent=end_magic)
def pad():
    # The first 0x5a word: its line's address and its place on the line.
    first = next((int(row[0].rstrip(':'), 16) + 4 * i
                  for row in CRASH['rows'] for i, w in enumerate(row[1:5])
                  if w == '5a5a5a5a'), None)
    expect_true(first is not None, seen('rd\'s words'), 'a 5a5a5a5a word',
                'none in 2 KB')
    above = expect_in(first - CRASH['stack'], 0, WARN,
                      seen('the first 0x5a byte, in bytes above the end'))
    answer('pad_offset', above)
    # The offset is a question of the lab's (pad_offset): not shown.


@test("crash's log has the IRQ-entry check's report with descend in its "
      "trace", parent=crash_run)
def log():
    for said in ('low stack detected by irq handler', 'descend+'):
        expect_true(said in section('log'), seen('crash\'s log'),
                    'a line with "%s"' % said, 'none')


# panic() took the other CPU offline before the dump (stop_this_cpu()
# clears it from cpu_online_mask): crash counts online CPUs.
@test('sys counts the CPUs left online by panic()', parent=crash_run)
def cpus():
    cpus = value('CPUS')
    answer('cpus', int(cpus) if (cpus or '').isdigit() else cpus)
    expect(cpus, '1', seen('sys: CPUS'))
    return cpus


# crash's own task table (sys, ps) holds only the active and idle tasks
# here, although the kernel's task list is intact: see labs/6/README.md.
@test('walking init_task.tasks finds every task, dd among them',
      parent=crash_run)
def task_list():
    tasks = re.findall(r'^([0-9a-f]{8})$', section('tasks'), re.M)
    listed = len(tasks)
    CRASH['listed'] = listed
    expect_true(listed > 20, seen('the tasks on init_task.tasks'),
                'more than 20', listed)
    comm = re.search(r'^ *task_struct_comm: (\d+)$', section('offsets'), re.M)
    expect_true(comm, seen("crash's offset of task_struct.comm (help -o)"),
                'task_struct_comm: N', 'none')
    text = CRASH['session'].ask([c for t in tasks for c in (
        'rd -a %#x' % (int(t, 16) + int(comm.group(1))), 'echo')])
    with open(LOG, 'a') as f:
        f.write(text)
    names = re.findall(r'^[0-9a-f]{8}:  (.*)$', text, re.M)
    expect_true('dd' in names, seen('their commands (rd -a at each comm)'),
                'dd among them', ' '.join(names) or 'none')
    return "%d; crash's sys says TASKS: %s" % (listed, value('TASKS'))


# Why: this 6.1.y tree ends struct pid in a flexible numbers[] (the 6.5
# change, backported), so sizeof(struct pid) stops where numbers[0]
# begins. crash 8.0.2 reads sizeof(struct pid) bytes of each pid in the
# IDR and takes numbers[0].ns from past them: no pid matches init_pid_ns.
@test('struct pid ends in numbers[] at its size: crash 8.0.2 reads upid '
      'past the pid, so its table keeps fewer tasks than the list',
      parent=task_list)
def struct_pid():
    text = section('struct pid')
    size = re.search(r'^SIZE: *(\d+)', text, re.M)
    numbers = re.search(r'^ *\[(\d+)\] struct upid numbers\[\];', text, re.M)
    expect_true(size and numbers, seen('struct pid -o'),
                '[N] struct upid numbers[]; and SIZE: N', text.strip())
    expect(int(numbers.group(1)), int(size.group(1)),
           seen('the offset of numbers[], against SIZE'))
    tasks = int(value('TASKS') or 0)
    expect_true(tasks < CRASH['listed'], seen('sys: TASKS'),
                'fewer than the %d tasks listed' % CRASH['listed'], tasks)
    return 'offset %s = size; TASKS %d of %d' % (
        numbers.group(1), tasks, CRASH['listed'])


run_tests()
