# Grader of lab 5 (stage 3): a thread made by threads (vm/guest/threads.c) gets a
# one-page kernel stack with its end magic; what a thread costs besides. Run by vm/session/ks
# (make grade N=5) in gdb batch mode against a fresh guest; the counts
# are checked by tests/checks/87-*.
import gdb

from vm.session import facts
from labs.gdbutil import (cpu, current, frame_name, run, start_lab, thread_size, val,
                          word)
from labs.gradelib import (answer, expect, expect_in, expect_true, lab_number,
                           run_tests, test)

STAGE = facts.lab(lab_number())['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
PAGE = facts.machine(facts.lab(lab_number())['stage'])['page_bytes']
# The memory the mib_threads questions are about: the learner's variant
# (lab.toml), in MiB.
MIBS = facts.lab(lab_number())['variant']['mib']
MIB = MIBS << 20
NEW = {}           # the new thread: its pid and stack


@test('the lab stops in copy_process(), called by threads')
def stop():
    start_lab()
    expect(frame_name(), 'copy_process', 'the function gdb stopped in')
    expect(current(cpu())['comm'].string(), 'threads', 'the current task')


@test('copy_process() returns the new thread', parent=stop)
def new_thread():
    run('finish')
    # finish leaves the returned task_struct pointer in $.
    task = gdb.parse_and_eval('$').dereference()
    NEW.update(pid=int(task['pid']), stack=int(task['stack']))
    expect_true(NEW['stack'], 'its stack', 'an address', 'NULL')
    return 'pid %d' % NEW['pid']


# At stage 3 every page is a multiple of 4096, so alignment to THREAD_SIZE
# shows nothing here: the check is the size, and that it starts a page.
@test('the new thread has a THREAD_SIZE stack (vm/stages.toml): one page',
      parent=new_thread)
def stack():
    ts = expect(thread_size(), STAGE['thread_size'], 'THREAD_SIZE (sizeof(init_stack))')
    expect(NEW['stack'] % PAGE, 0, 'its stack %#x modulo the page size' % NEW['stack'])
    answer('stack_pages', ts // PAGE)
    return '%d bytes at %#x' % (ts, NEW['stack'])


@test("a thread costs its stack and a task_struct: threads per %d MiB (the "
      "learner's variant) at 4K and at 8K stacks" % MIBS, parent=stop)
def per_thread():
    task = expect_in(val('sizeof(struct task_struct)'), 512, 8192,
                     'sizeof(struct task_struct), in bytes')
    answer('task_bytes', task)
    answer('mib_threads_4k', MIB // (4096 + task))
    answer('mib_threads_8k', MIB // (8192 + task))
    # The counts are questions of the lab's (mib_threads_4k, _8k): not
    # shown; the task_struct's size, a prediction's, is.
    return 'task_struct %d bytes' % task


@test('its lowest word already holds STACK_END_MAGIC', parent=new_thread)
def end_magic():
    expect(word(NEW['stack']), MAGIC, 'the word at its stack\'s bottom')


run_tests()
