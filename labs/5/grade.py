# Grader of lab 5 (stage 3): a thread made by vm/guest/threads gets a
# one-page, page-aligned kernel stack with its end magic. Run by vm/ks
# (make grade N=5) in gdb batch mode against a fresh guest; the counts
# are checked by tests/checks/87-*.
import gdb

import facts
from gdbutil import cpu, current, frame_name, run, start_lab, thread_size, word
from gradelib import (answer, expect, expect_true, lab_number, run_tests,
                      test)

STAGE = facts.lab(lab_number())['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
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
    answer('new_pid', NEW['pid'])
    return 'pid %d' % NEW['pid']


@test('the new thread has a THREAD_SIZE stack (vm/stages.toml), aligned to '
      'its size', parent=new_thread)
def stack():
    ts = expect(thread_size(), STAGE['thread_size'], 'THREAD_SIZE (sizeof(init_stack))')
    expect(NEW['stack'] % ts, 0, 'its stack %#x modulo THREAD_SIZE' % NEW['stack'])
    answer('stack_bytes', ts)
    return '%d bytes at %#x' % (ts, NEW['stack'])


@test('its lowest word already holds STACK_END_MAGIC', parent=new_thread)
def end_magic():
    expect(word(NEW['stack']), MAGIC, 'the word at its stack\'s bottom')


run_tests()
