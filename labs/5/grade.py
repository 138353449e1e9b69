# Grader of lab 5 (stage 3): a thread made by vm/guest/threads gets a
# one-page, page-aligned kernel stack with its end magic. Run by
# labs/grade.sh; the counts are checked by tests/checks/87-*.
import gdb

from grading import answer, check, cpu, current, frame_name, run, start_lab, val

start_lab(5)
check(frame_name() == 'copy_process' and
      current(cpu())['comm'].string() == 'threads',
      'the lab stops in copy_process(), called by threads')
run('finish')
task = gdb.parse_and_eval('$').dereference()
stack = int(task['stack'])
ts = val('sizeof(init_stack)')
check(ts == 4096 and stack % ts == 0,
      'the new thread (pid %d) has a %d-byte stack at %#x, aligned to its size'
      % (int(task['pid']), ts, stack))
check(val('*(unsigned long *)%d' % stack) == 0x57ac6e9d,
      'its lowest word already holds STACK_END_MAGIC')
answer('stack_bytes', ts)
answer('new_pid', int(task['pid']), 10)
