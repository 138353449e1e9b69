# Grader of lab 4 (stage 3): the 25-frame descent overwrites the end of a
# 4K stack, and the watchpoint catches the writer. Run by vm/session/ks (make
# grade N=4) in gdb batch mode against a fresh guest.
import re

import gdb

from kstack import stacks
from vm.session import facts
from labs.gdbutil import cpu, current, frame_name, run, start_lab, val, word
from labs.gradelib import answer, expect, expect_in, expect_true, lab_number, run_tests, test

MAGIC = facts.kernel()['stack_end_magic']
# descend()'s bytes of locals: the learner's variant (lab.toml).
FRAME = facts.lab(lab_number())['variant']['frame']
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
    answer('overwriter', 'recursion' if name == 'descend' else 'interrupt')
    # Now and then an interrupt's entry lands in the word first, while
    # descend's last frames are still above it: the watchpoint stops
    # again when descend's own frame writes there.
    for _ in range(5):
        if name == 'descend':
            break
        run('continue')
        name = frame_name()
    expect(name, 'descend', 'the function the watchpoint stopped in')
    got = word(DD['base'])
    expect_true(got != MAGIC, 'the word at the bottom of dd\'s stack',
                'not %#x any more' % MAGIC, '%#x' % got)
    DD['depth'] = val('depth')
    answer('depth_at_overwrite', DD['depth'])
    return 'at depth %d' % DD['depth']


@test('one descend() call takes the same bytes of stack as the next: '
      '$sp of frame 2 minus $sp of frame 1', parent=overwrite)
def frame_bytes():
    # gdb's $sp in an outer frame is where the frame's call left it: the
    # difference between two callers is one whole call (return address,
    # saved registers, its locals (the learner's variant: FRAME bytes of
    # them) and what else it keeps).
    frames = [gdb.selected_frame()]
    for _ in range(3):
        frames.append(frames[-1].older())
    names = [f.name() if f else None for f in frames]
    expect(names, ['descend'] * 4, 'the innermost four frames')
    sps = [int(f.read_register('sp')) & stacks.mask() for f in frames[1:]]
    sizes = [b - a for a, b in zip(sps, sps[1:])]
    expect(sizes[0], sizes[1], 'frame 2 - frame 1, against frame 3 - frame 2')
    size = expect_in(sizes[0], FRAME, FRAME + 256, 'the bytes of one descend() call, '
                     'with its %d bytes of locals' % FRAME)
    answer('frame_bytes', size)
    # The size is a question of the lab's (frame_bytes): not shown.


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
    # The magic lies about 3700 bytes under where dd's descent starts: that
    # many bytes of calls of FRAME bytes of locals and 20 of their own.
    least = 2800 // (FRAME + 20)
    frames = len(re.findall(r'descend\+', run('ks-bt')))
    expect_true(frames >= DD['depth'] - 1 > least, 'the descend+ frames in ks-bt',
                'at least %d (depth %d - 1), and more than %d'
                % (DD['depth'] - 1, DD['depth'], least), frames)
    return '%d frames' % frames


run_tests()
# The watchpoint has done its work: none left behind on the guest.
run('delete')
