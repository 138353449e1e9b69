# Grader of lab 4 (stage 3): the 25-frame descent overwrites the end of a
# 4K stack, and the watchpoint catches the writer. Run by vm/ks (make
# grade N=4) in gdb batch mode against a fresh guest.
import re

import facts
from gdbutil import cpu, current, frame_name, run, start_lab, val, word
from gradelib import answer, expect, expect_true, run_tests, test

MAGIC = facts.kernel()['stack_end_magic']
DD = {}            # dd's task and the bottom of its stack, at the lab's stop


@test("the lab stops in stackdeep's frames_write(), in dd")
def stop():
    start_lab()
    expect(frame_name(), 'frames_write', 'the function gdb stopped in')
    task = current(cpu())
    expect(task['comm'].string(), 'dd', 'the current task')
    DD.update(base=int(task['stack']), pid=int(task['pid']))
    return 'pid %d, stack %#x' % (DD['pid'], DD['base'])


@test("dd's end magic is intact before the descent", parent=stop)
def intact():
    expect(word(DD['base']), MAGIC, 'the word at the bottom of dd\'s stack')


@test('the watchpoint stops in descend, which overwrote the end magic',
      parent=stop)
def overwrite():
    run('continue')
    name = frame_name()
    expect(name, 'descend', 'the function the watchpoint stopped in')
    got = word(DD['base'])
    expect_true(got != MAGIC, 'the word at the bottom of dd\'s stack',
                'not %#x any more' % MAGIC, '%#x' % got)
    DD['depth'] = val('depth')
    answer('overwritten_by', name)
    answer('depth_at_overwrite', DD['depth'])
    return 'at depth %d' % DD['depth']


@test("ks-where says $sp is below the end of dd's stack", parent=overwrite)
def where():
    sp, base = val('$sp'), DD['base']
    expect_true(sp < base, '$sp', 'below %#x' % base, '%#x' % sp)
    out = run('ks-where')
    said = 'is %d bytes BELOW the end of the task stack of pid %d' % (
        base - sp, DD['pid'])
    expect_true(said in out, 'ks-where\'s words', said, out.strip())
    return '%d bytes below' % (base - sp)


@test('ks-bt lists the descend() frames down past the end', parent=overwrite)
def bt():
    frames = len(re.findall(r'descend\+', run('ks-bt')))
    expect_true(frames >= DD['depth'] - 1 > 10, 'the descend+ frames in ks-bt',
                'at least %d (depth %d - 1), and more than 10'
                % (DD['depth'] - 1, DD['depth']), frames)
    return '%d frames' % frames


run_tests()
# The watchpoint has done its work: none left behind on the guest.
run('delete')
