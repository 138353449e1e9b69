# Grader of lab 4 (stage 3): the 25-frame descent overwrites the end of a
# 4K stack, and the watchpoint catches the writer. Run by labs/grade.sh.
import re

from grading import answer, check, cpu, current, frame_name, run, start_lab, val

start_lab(4)
task = current(cpu())
base = int(task['stack'])
check(frame_name() == 'frames_write' and task['comm'].string() == 'dd',
      'the lab stops in stackdeep\'s frames_write(), in dd')
check(val('*(unsigned long *)%d' % base) == 0x57ac6e9d,
      'dd\'s end magic at %#x is intact before the descent' % base)

run('continue')
name = frame_name()
sp = val('$sp')
depth = val('depth') if name == 'descend' else -1
check(name == 'descend' and val('*(unsigned long *)%d' % base) != 0x57ac6e9d,
      'the watchpoint stops in %s, which overwrote the end magic' % name)
answer('overwritten_by', name)
answer('depth_at_overwrite', depth, 20)
where = run('ks-where')
check(sp < base and re.search(r'is %d bytes BELOW the end of the task stack of pid %d'
                              % (base - sp, int(task['pid'])), where),
      'ks-where says $sp is %d bytes below the end of dd\'s stack' % (base - sp))
bt = run('ks-bt')
check(len(re.findall(r'descend\+', bt)) >= depth - 1 > 10,
      'ks-bt lists the %d descend() frames down past the end' % depth)
run('delete')
