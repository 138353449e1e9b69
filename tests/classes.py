"""tests/classes.py: classes of learners made from the labs' own solutions,
for make grade-class (check 98, make bench).

    why(n, right)         lab N's "why" answers, all right or all wrong
    learner(root, who, task0, task1, answers, patch)
                          ROOT/WHO, a submission folder as make submission
                          writes it: lab 0's and lab 1's task files, answers
                          files {n: text}, lab 2's kernel patch
    kernel_patches()      lab 2's kernel: (the project's patch, the same
                          without the saved esp at the hardirq stack's
                          bottom)
"""
import glob
import os

from tests.checklib import TOP, facts


def why(n, right=True):
    lines = []
    for key, q in facts.lab(n)['questions'].items():
        if 'answer' in q:
            a = q['answer'] if right else 'abcd'[('abcd'.index(q['answer']) + 1) % 4]
            lines.append('%s = %s\n' % (key, a))
    return ''.join(lines)


def learner(root, who, task0=None, task1=None, answers=None, patch=None):
    d = os.path.join(root, who)
    os.makedirs(d)
    with open(os.path.join(d, 'learner'), 'w') as f:
        f.write(who + '\n')
    for n, text, name in ((0, task0, 'my_bt.py'), (1, task1, 'my_xbt.py')):
        if text is not None:
            os.makedirs(os.path.join(d, 'tasks', str(n)))
            with open(os.path.join(d, 'tasks', str(n), name), 'w') as f:
                f.write(text)
    for n, text in (answers or {}).items():
        os.makedirs(os.path.join(d, 'answers'), exist_ok=True)
        with open(os.path.join(d, 'answers', 'lab%d.txt' % n), 'w') as f:
            f.write(text)
    if patch:
        os.makedirs(os.path.join(d, 'kernels'))
        with open(os.path.join(d, 'kernels', '2.patch'), 'w') as f:
            f.write(patch)
    return d


def kernel_patches():
    """Lab 2's kernel exercise: the project's patch (a format-patch, as the
    learner's git would make it), and the same without the line that saves
    the interrupted esp at the bottom of the hardirq stack."""
    path = glob.glob(os.path.join(TOP, facts.lab(2)['exercise']['solution'][0]))[0]
    with open(path) as f:
        right = f.read()
    saved = '+\t*prev_esp = current_stack_pointer;\n'
    assert saved in right, '%s no longer saves the esp as tests/classes.py expects' % path
    wrong = right.replace(saved, '', 1).replace('@@ -52,23 +52,86 @@', '@@ -52,23 +52,85 @@')
    return right, wrong
