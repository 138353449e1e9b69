# The tasks of labs 0, 1, 5, 6 and 7 (make exercise N=k, make grade N=k
# EXERCISE=1, make hint N=k), as a learner meets them:
#  - make grade before make exercise says to run make exercise first;
#    make exercise copies the skeleton, and run again leaves the
#    learner's file alone; make hint gives one more hint each time
#    (the first call two: the README has the first);
#  - three sides of each task's grader, on one guest per lab (the
#    graders take several files at once, labs/tasklib.py): the untouched
#    skeleton fails, a failed check saying what it expected and what it
#    got; the reference solution (labs/k/task/solution.patch on the
#    skeleton) passes every
#    check; wrong solutions, each made from the reference by one
#    plausible mistake, fail, and fail the check that names the mistake
#    (and, where said, pass the others).
# The learner's files live in build/task-check (EXERCISES), not in the
# learner's build/exercises. The skeleton's lines of each grader's output
# go to build/results/taskN-skeleton.txt, for the workbook.
import os
import re
import shutil

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from tests import checklib
from tests.checklib import BUILD, expect, facts, fit
from vm.session import exercise

WORK = os.path.join(BUILD, 'task-check')
RESULTS = os.path.join(BUILD, 'results')

# The reference solution of lab 1's lines that cross from an IRQ stack.
CROSSING = """            if here not in ('hardirq', 'softirq'):
                break
            saved = word(known[here][0])
            if stack_of(saved, known) != there or ebp < saved:
                break
            here = there"""
# Each wrong solution: (label, what the mistake is, the reference's text
# to replace, its replacement, a title substring of a check that must
# fail, title substrings of checks that must still pass).
WRONG = {
    0: [('ret-at-ebp', 'reads the return address at [ebp] and the next ebp '
         'at [ebp+4]', [('ret = word(ebp + 4)', 'ret = word(ebp)'),
                        ('ebp = word(ebp)\n', 'ebp = word(ebp + 4)\n')],
         'my-bt at handle_irq_event on CPU 0', []),
        ('no-first-insn', 'walks from $ebp at a first instruction, skipping '
         'the direct caller', [("    if at_first_instruction(pc):\n        ret = "
                                "word(sp)\n        found.append((ret, function_of("
                                "ret - 1)))\n", '')],
         "at __handle_irq's first instruction", ['the middle of handle_edge_irq']),
        ('name-by-ret', 'names each frame after its return address, not the '
         'byte before it', [('function_of(ret - 1)', 'function_of(ret)')],
         'in the idle task', ['the middle of handle_edge_irq'])],
    1: [('stops-at-irq-top', 'ends the walk where the chain leaves an IRQ '
         'stack', [(CROSSING, '            break')],
         'from the task stack', []),
        ('ignores-lowest-word', 'crosses to any known stack the chain leads '
         'to, without the IRQ stack\'s lowest word', [(CROSSING, '            here = there')],
         "trusts the hardirq stack's lowest word",
         ['from the task stack', 'taken during a softirq']),
        ('word-at-top', "reads the saved esp at the IRQ stack's top, not its "
         'lowest word', [('saved = word(known[here][0])',
                          'saved = word(known[here][1] - 4)')],
         "trusts the hardirq stack's lowest word", []),
        ('follows-zero-regs', "follows a kernel thread's all-zero pt_regs under "
         'ret_from_fork past its last frame', [('if user or ip < KERNEL_START:',
                                                'if user:')],
         # (A stop whose interrupted task is a kernel thread fails it too:
         # only chains that end in user mode must pass.)
         'in a kernel thread', ['an interrupt from user mode', 'in a system call'])],
    5: [('ignores-8mb-floor', 'predicts as if all of MemFree went to threads, '
         'forgetting the 8 MB that threads leaves free',
         [('SAMPLE + (long)((free1 - STOP_KB) / cost)', 'SAMPLE + (long)(free1 / cost)')],
         'its prediction', ['KernelStack grows']),
        ('stack-only', 'counts only the stack as what a thread costs',
         [('cost = (double)(free0 - free1) / SAMPLE;', 'cost = stack;')],
         'its prediction', ['KernelStack grows'])],
    6: [('looks-for-broken-magic', 'looks for a task whose end magic is gone',
         [("""        used = [addr for addr, value in read.get(pid, [])[1:] if value]
        if not used:
            continue
        not_used = used[0] - stack
        if best is None or not_used < best[3]:
            best = (pid, comm, stack, not_used)""", """        magic = read.get(pid, [(stack, STACK_END_MAGIC)])[0][1]
        if magic != STACK_END_MAGIC:
            best = (pid, comm, stack, 0)""")],
         'returns (pid, comm, stack, not_used)', []),
        ('counts-the-magic', 'takes the end magic for a used word',
         [('read.get(pid, [])[1:] if value]', 'read.get(pid, []) if value]')],
         'finds the task whose stack overflowed', [])],
    7: [('eight-k', "takes a task stack for i386's 8K",
         [("size = val('sizeof(init_stack)')", 'size = 8192')],
         "a sleeping task's stack", ['$rsp in __common_interrupt',
                                     'double-fault stack']),
        ('irq-ptr-is-base', "takes hardirq_stack_ptr for the stack's base, as "
         'on i386', [("yield 'hardirq', c, top - irq_size, irq_size",
                      "yield 'hardirq', c, top - 8, irq_size")],
         "$rsp in __common_interrupt", ["a sleeping task's stack"]),
        ('no-ist', 'knows no IST stack', [('for member, name in IST:',
                                           'for member, name in ():')],
         "this CPU's double-fault stack", ["a sleeping task's stack"]),
        ('current-only', 'looks only at the stacks of the tasks the CPUs run',
         [("found = {int(t['stack']): t for t in tasks.task_lists()}",
           'found = {}')],
         "a sleeping task's stack", ["this CPU's double-fault stack"]),
        ('guard-unchecked', 'calls the page under every stack a guard page, '
         'mapped or not', [(' and not readable(addr)', '')],
         'no guard page', ["the guard page under dd's stack"])],
}


def ks(*args, exercise_on=True, task=None):
    """vm/session/ks ARGS on this check's files (TASK: the files to grade,
    else the learner's file); (rc, output, seconds)."""
    return checklib.ks(*args, exercise=exercise_on, env={
        'EXERCISES': os.path.join(WORK, 'exercises'), 'KS_TASK': task or ''})


def checks_of(out, label):
    """{title: (status, the failure's lines)} for LABEL's checks in OUT."""
    found, lines = {}, out.splitlines()
    prefix = '[%s] ' % label
    for i, line in enumerate(lines):
        m = re.match(r'(ok|not ok|skip) - (.*)$', line)
        if not m or not m.group(2).startswith(prefix):
            continue
        title = m.group(2)[len(prefix):]
        detail = []
        for more in lines[i + 1:]:
            if not more.startswith('    '):
                break
            detail.append(more.strip())
        found[title] = (m.group(1), detail)
    return found


def first_failure(checks):
    for title, (status, detail) in checks.items():
        if status == 'not ok':
            return title, detail
    return None, []


def said(title, detail):
    """A failure in one line: its title, what, expected and got (first
    lines)."""
    text = [title or 'no check failed'] + [d for d in detail
                                           if not d.startswith('skipped')]
    return ' / '.join(t[:160] for t in text[:4])


def keep(n, out):
    """The lines a learner would see for the skeleton (the shared checks,
    then the skeleton's, its label taken off), for the workbook: every
    check's line, and what the first failure expected and got (the
    others' are alike)."""
    kept, details = [], 0
    lines = out.splitlines()
    take = False
    for line in lines:
        m = re.match(r'(ok|not ok|skip) - (\[([^]]+)\] )?', line)
        if m:
            take = m.group(3) in (None, 'skeleton')
            if take:
                line = line.replace('[skeleton] ', '', 1)
                if line.startswith('ok - '):
                    # What a passing check found (the thread count, the
                    # overflowed task) is the task's answer: not printed.
                    line = re.sub(r' \((?:[^()]|\([^()]*\))*\)$', '', line)
                details += line.startswith('not ok - ')
        elif not line.startswith('    '):
            take = False
        elif details > 1:
            continue
        if take:
            kept.append(line)
    if details > 1:
        kept.append('(what the other failures expected and got: left out here)')
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'task%d-skeleton.txt' % n), 'w') as f:
        f.write('$ make grade N=%d EXERCISE=1\n' % n + '\n'.join(fit(kept)) + '\n')


shutil.rmtree(WORK, ignore_errors=True)
TASKS = [k for k in facts.labs() if 'exercise' in facts.lab(k)
         and 'base' not in facts.lab(k)['exercise']]
expect(TASKS == [0, 1, 5, 6, 7], 'labs 0, 1, 5, 6 and 7 have a task', TASKS)

# The commands, without a guest.
for n in TASKS:
    ex = facts.lab(n)['exercise']
    name = os.path.basename(ex['skeleton'])
    mine = os.path.join(WORK, 'exercises', str(n), name)
    rc, out, took = ks('grade', n)
    # (The learner's EXERCISES, not the default: the line names it.)
    expect(rc != 0 and "run 'make exercise N=%d EXERCISES=%s' first" % (
        n, os.path.join(WORK, 'exercises')) in out and 'not ok' not in out and took < 20,
           'lab %d: make grade N=%d EXERCISE=1 before make exercise says to run '
           'it first, with the EXERCISES given (%.0f s)' % (n, n, took), out.strip()[-200:])
    rc, out, _ = ks('exercise', n, exercise_on=False)
    with open(os.path.join(facts.lab(n)['folder'], ex['skeleton'])) as f:
        skeleton = f.read()
    # The copy names where it is (EXERCISES moves it), not build/exercises.
    here = os.path.relpath(os.path.dirname(mine), checklib.TOP)
    here = (os.path.dirname(mine) if here.startswith('..') else here) + '/'
    want = skeleton.replace('build/exercises/%d/' % n, here)
    same = os.path.isfile(mine) and open(mine).read() == want
    expect(rc == 0 and same, 'lab %d: make exercise N=%d copies the skeleton to '
           'exercises/%d/%s, naming itself %s' % (n, n, n, name, here + name),
           out.strip()[-200:])
    with open(mine, 'a') as f:
        f.write('\n# my work\n' if not name.endswith('.c') else '\n/* my work */\n')
    rc, out, _ = ks('exercise', n, exercise_on=False)
    expect(rc == 0 and 'my work' in open(mine).read() and 'left as it is' in out,
           'lab %d: make exercise again leaves the file alone and says so' % n,
           out.strip()[-200:])
    firsts = []
    for _ in range(2):
        rc, out, _ = ks('hint', n, exercise_on=False)
        firsts.append(out)
    # The README gives the first: the first make hint adds the second.
    expect(firsts[0].startswith('1. ') and '\n2. ' in firsts[0] and
           '\n3. ' not in firsts[0] and '\n3. ' in firsts[1] and
           '(3 of %d hints' % len(ex['hints']) in firsts[1],
           'lab %d: make hint N=%d gives one more hint each time (%d in all)'
           % (n, n, len(ex['hints'])), (firsts[0][:100], firsts[1][-100:]))

# make grade with no N: one table of every lab, as a learner who has
# started lab 0's task (its untouched skeleton, which fails) and answered
# two "why" questions, one right (lab 0) and one wrong (lab 3), sees it.
# One guest in all: the other labs are not started, and a "why" is
# judged without one.
ALL = os.path.join(WORK, 'grade-all')
first = facts.lab(0)['exercise']['skeleton']
mine = os.path.join(ALL, 'exercises', '0', os.path.basename(first))
os.makedirs(os.path.dirname(mine))
shutil.copy(os.path.join(facts.lab(0)['folder'], first), mine)
os.makedirs(os.path.join(ALL, 'answers'))
right = {0: facts.lab(0)['questions']['why_round_down']['answer'],
         3: 'a' if facts.lab(3)['questions']['why_warn_relic']['answer'] != 'a' else 'b'}
for n, key in ((0, 'why_round_down'), (3, 'why_warn_relic')):
    with open(os.path.join(ALL, 'answers', 'lab%d.txt' % n), 'w') as f:
        f.write('%s = %s\n' % (key, right[n]))
rc, out, took = checklib.ks('grade-all', os.path.join(ALL, 'answers'), exercise=False,
                            env={'EXERCISES': os.path.join(ALL, 'exercises'), 'KS_TASK': ''})
rows = {int(l.split()[0]): l for l in out.splitlines() if re.match(r'\d+ ', l)}
asked = {n: len([k for k in facts.lab(n)['questions'] if not k.startswith('predict_')])
         for n in facts.labs()}
expect(rc == 0 and sorted(rows) == facts.labs(),
       'make grade with no N prints a row for every lab (%.0f s)' % took, out.strip()[-600:])
expect(re.search(r'exercise not passed \((\d+) of (\d+) checks\)  +1/%d right' % asked[0],
                 rows.get(0, '')) and 'not passed: lab 0, exercise: ' in out and
       "lab 0: grading your task's file (make grade N=0 EXERCISE=1 EXERCISES=%s)"
       % os.path.join(ALL, 'exercises') in out,
       "make grade with no N: lab 0's started task is graded, its failed checks "
       "named, its right \"why\" counted", (rows.get(0), out.strip()[-600:]))
expect('exercise not started (make exercise N=3 EXERCISES=%s)' % os.path.join(
    ALL, 'exercises') in rows.get(3, '') and ' 0/%d right' % asked[3] in rows.get(3, '') and
       'exercise not started (make exercise N=2 EXERCISES=' in rows.get(2, ''),
       'make grade with no N: labs 2 and 3 not started, lab 3\'s wrong "why" not counted',
       (rows.get(2), rows.get(3)))

# The three sides, one guest per lab.
for n in TASKS:
    lab = facts.lab(n)
    ex = lab['exercise']
    name = os.path.basename(ex['skeleton'])
    folder = lab['folder']
    reference = exercise.task_reference(n)
    files = {'skeleton': open(os.path.join(folder, ex['skeleton'])).read(),
             'reference': reference}
    for label, what, edits, fails, passes in WRONG[n]:
        text = reference
        for old, new in edits:
            text = text.replace(old, new) if old in text else None
            if text is None:
                break
        if expect(text is not None, 'lab %d: the wrong solution "%s" is made from '
                  'the reference by its edit' % (n, label),
                  'the reference no longer holds the text it edits'):
            files[label] = text
    paths = []
    for label, text in files.items():
        path = os.path.join(WORK, str(n), label, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        paths.append(path)
    rc, out, took = ks('grade', n, task=os.pathsep.join(paths))
    keep(n, out)
    graded = {label: checks_of(out, label) for label in files}

    title, detail = first_failure(graded['skeleton'])
    expect(title and any(d.startswith('expected:') for d in detail) and
           any(d.startswith('got:') for d in detail),
           'lab %d: the untouched skeleton fails, saying what it expected and '
           'got: %s' % (n, said(title, detail)), out.strip()[-400:])

    ref = graded['reference']
    bad = [t for t, (status, _) in ref.items() if status != 'ok']
    expect(ref and not bad, 'lab %d: the reference solution (labs/%d/%s) passes '
           'all %d checks, on one guest with the others (%.0f s)'
           % (n, n, ex['solution'], len(ref), took),
           '; '.join(said(t, ref[t][1]) for t in bad) or out.strip()[-400:])

    for label, what, edits, fails, passes in WRONG[n]:
        if label not in graded:
            continue
        checks = graded[label]
        failed = [t for t, (status, _) in checks.items()
                  if status == 'not ok' and fails in t]
        kept = [t for t, (status, _) in checks.items()
                if status != 'ok' and any(p in t for p in passes)]
        title = failed[0] if failed else None
        expect(failed and not kept, 'lab %d: a solution that %s ("%s") fails: %s%s'
               % (n, what, label, said(title, checks[title][1]) if title else '',
                  '; it passes "%s"' % '", "'.join(passes) if passes else ''),
               'no failed check with "%s" in its title; %s' % (
                   fails, '; '.join('%s: %s' % (t, s) for t, (s, _) in checks.items())))
