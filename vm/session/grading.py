"""vm/session/grading.py: a lab graded, and every lab in one table.

  grade(n, answers_file)  make grade N=n: the lab's grader (or, with
                          EXERCISE=1, its task's) against a fresh guest,
                          its KTAP report beside its log, the learner's
                          answers judged; the verdicts, one a line, and
                          the last line "lab N: P passed, F failed (...)"
  grade_all(folder)       make grade: the table of every lab, from the
                          learner's answers files (a lab not started
                          costs nothing)

vm/session/ks calls them behind make; so may any caller that grades (a
class, a submission).
"""
import json
import os
import re
import shutil
import subprocess
import sys

from vm.session import facts
from vm.session import folders
from vm.session import results
from vm.session.answers import check_answers, read_answers, reasoned, why
from vm.session.kernels import build
from vm.session.session import BUILD, TIMEOUT, TOP, Guest, GuestError, lab_scripts, say

# A grader must end within KS_GRADE_TIMEOUT seconds.
GRADE_TIMEOUT = int(os.environ.get('KS_GRADE_TIMEOUT') or TIMEOUT)


def task_file(n, lab):
    """With EXERCISE=1, the learner's file for lab N's task (labs 0, 1,
    5, 6), if the lab's exercise is a task; None otherwise. GuestError
    if it was never made."""
    from vm.session import exercise
    if not facts.exercise() or not exercise.is_task(lab):
        return None
    mine = exercise.task_file(n)
    if not os.path.isfile(mine) and not os.environ.get('KS_TASK'):
        raise GuestError("no file of yours for lab %d's task at %s: run '%s' first"
                         % (n, mine, folders.make_line('exercise N=%d' % n)))
    return mine


def report(fields):
    """A test record as the lines a learner reads."""
    word = {'ok': 'ok', 'fail': 'not ok', 'skip': 'skip'}[fields['status']]
    lines = ['%s - %s%s' % (word, fields['title'],
                            ' (%s)' % fields['detail'] if fields.get('detail') else '')]
    if 'expected' in fields:
        lines += ['    %s' % fields['what'],
                  '      expected: %s' % results.indent(fields['expected']),
                  '      got:      %s' % results.indent(fields['got'])]
    elif fields.get('reason'):
        lines.append('    %s' % fields['reason'])
    return lines


def write_ktap(path, n, grader, text):
    """The KTAP report at PATH; also, under make check (KS_KTAP_DIR), a
    copy named by lab and grader, for the check that parses every one
    with the kernel's own parser (tests/checks/95-ktap.py)."""
    with open(path, 'w') as f:
        f.write(text)
    folder = os.environ.get('KS_KTAP_DIR')
    if folder:
        os.makedirs(folder, exist_ok=True)
        kind = 'task' if os.path.basename(os.path.dirname(grader)) == 'task' else 'grade'
        run = os.path.basename(os.path.dirname(path))
        shutil.copyfile(path, os.path.join(folder, 'lab%d-%s-%d-%s-%s' % (
            n, kind, os.getpid(), run, os.path.basename(path))))


def grade(n, answers_file=None):
    lab = facts.lab(n)
    folders.remember(answers_file)
    answers = read_answers(answers_file) if answers_file else []
    mine = task_file(n, lab)
    build(lab['stage'])
    env = {'KS_LAB': str(n)}
    grader = lab['grader']
    if mine:
        # The task's grader, on the learner's file (KS_TASK: a check
        # may name several, labs/tasklib.py).
        env['KS_TASK'] = os.environ.get('KS_TASK') or mine
    attempt = 1
    if lab['kind'] in ('crash', 'host'):
        # The grader runs on the host (lab 6's reads crash's output).
        log = os.path.join(BUILD, 'run', 'lab%d-grade-%d.log' % (n, os.getpid()))
        os.makedirs(os.path.dirname(log), exist_ok=True)
        records = log[:-4] + '.jsonl'
        p = subprocess.run([sys.executable, '-m', lab['grader_module']], cwd=TOP, env=dict(
            os.environ, KS_RESULTS=records, **env), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)
        output, records, problem = p.stdout.decode(errors='replace'), results.read(records), None
        with open(log, 'w') as f:
            f.write(output)
    else:
        # A lab whose workload may end the guest by chance (lab.toml's
        # guest_may_die: lab 3's descents now and then overflow dd's stack
        # from the timer interrupt) is graded again, once, on a fresh
        # guest if it did. A kernel that dies every time still fails; in
        # the other labs a guest that dies is always a failure.
        for attempt in (1, 2):
            with Guest(lab['stage'], lab['guest_path'], append=lab['append'], halted=True,
                       keep_dead=True) as guest:
                run = guest.gdb(lab_scripts(lab, grader), GRADE_TIMEOUT, env,
                                guarded=True)
                output, records, problem = run.output, run.records, None
                log = guest.path('gdb-%d.log' % guest.gdb_runs)
                if run.timed_out:
                    problem = guest.explain("lab %d's grader did not finish within "
                                            "%d s (hung guest?)" % (n, GRADE_TIMEOUT))
                elif run.rc == 3:
                    # labs/guard.py: the kernel died or the guest ended
                    # while the grader ran (not after it: a lab's workload
                    # may end the guest later).
                    problem = guest.explain(
                        'the kernel died during grading' if os.path.exists(
                            guest.path('postmortem.txt')) else
                        'the guest ended during grading')
            if attempt == 2:
                break
            forget_answers(os.path.splitext(log)[0] + '.jsonl')
            # A workload that can end the guest by chance can hang it too
            # (lab 3's reports' storm, now and then, in the console's lock).
            if (run.rc == 3 or run.timed_out) and lab['guest_may_die']:
                print('%s\nks: grading lab %d again, once, on a fresh guest '
                      '(log of the first run: %s)' % (problem, n, log), file=sys.stderr)
            elif missed(run.records) and not problem:
                print('ks: the grader missed a stop it needs (%s): grading lab %d again, '
                      'once, on a fresh guest (log of the first run: %s)'
                      % (missed(run.records)[0], n, log), file=sys.stderr)
            else:
                break
    if problem:
        print(problem, file=sys.stderr)
    tests = [r for r in records if r['kind'] == 'test']
    lines = [line for t in tests for line in report(t)]
    # The run's KTAP report, beside its log: the plan the grader declared
    # before its first check, and its results.
    planned = ([r for r in records if r['kind'] == 'plan'] or [{}])[0]
    plan = planned.get('tests', 0)
    # What ended a run early, in a few words: the guest's end, if it ended.
    ended = problem.splitlines()[0].split(': ', 1)[-1] if problem else None
    ktap = os.path.splitext(log)[0] + '.ktap'
    write_ktap(ktap, n, grader, results.ktap(
        plan, tests, planned.get('titles', ()), ended or 'the grader stopped before it'))
    # gradelib's last record: without it the grader stopped half-way (its
    # own error, or gdb's).
    if not any(r['kind'] == 'done' for r in records) or problem:
        # gdb's last words, unless a post-mortem (above) has said more.
        if not os.path.exists(os.path.join(os.path.dirname(log), 'postmortem.txt')):
            print('\n'.join(output.splitlines()[-20:]), file=sys.stderr)
        # What stopped it, in the verdict itself: the guest's end, or gdb's
        # last error.
        stopped = ended or next((l.strip() for l in reversed(output.splitlines())
                                 if re.search(r'[Ee]rror|Exception|Traceback', l)),
                                'it stopped early')
        lines.append("not ok - lab %d's grader ran to its end: %s (log: %s)"
                     % (n, stopped, log))
    elif results.short_of_plan(plan, tests):
        lines.append("not ok - lab %d's grader ran its plan: %s (KTAP: %s)"
                     % (n, results.short_of_plan(plan, tests), ktap))
    # The learner's answers, when a file was given (/dev/null: none, as
    # make grade's table grades a task): every question it leaves
    # unanswered is not ok.
    given_file = answers_file and answers_file != os.devnull
    # A task's grade holds the answers file to every question only when
    # ANSWERS names it (make passes answers/labN.txt whenever it exists:
    # a task passed is not failed for the lab's questions left open).
    every = bool(given_file) and (not mine or bool(os.environ.get('ANSWERS')))
    if not (mine and answers_file is None):
        # (A task's grade asks no questions unless given ANSWERS.)
        lines += check_answers(n, answers, [r for r in records if r['kind'] == 'answer'],
                               every=every)
    print('\n'.join(lines))
    forget_answers(os.path.splitext(log)[0] + '.jsonl')
    passed = sum(l.startswith('ok - ') for l in lines)
    failed = sum(l.startswith('not ok - ') for l in lines)
    skipped = sum(l.startswith('skip - ') for l in lines)
    skips = ''
    if skipped:
        skips = ', %d skipped' % skipped + (
            ': the grade is incomplete (not your code): run it again'
            if missed(records) else '')
    print('lab %d: %d passed, %d failed%s%s (%s; log: %s)' % (
        n, passed, failed, skips,
        ', on a second guest' if attempt == 2 else '',
        answered(n, answers, lines, every, mine), log))
    return 1 if failed or skipped else 0


def forget_answers(path):
    """Blank the values of the grader's answer records in PATH once they
    are judged: the run folder is the learner's, and a grade run with
    no answers must not leave the answers there to copy. The checks keep
    them (KS_KEEP_ANSWERS=1, tests/run.sh): they grade one learner's
    answers against another's variant."""
    if os.environ.get('KS_KEEP_ANSWERS') == '1':
        return
    records = results.read(path)
    if not any(r.get('kind') == 'answer' for r in records):
        return
    kept = [dict(r, value='(judged; not kept)') if r.get('kind') == 'answer' else r
            for r in records]
    with open(path + '.tmp', 'w') as f:
        f.write(''.join(json.dumps(r, sort_keys=True) + '\n' for r in kept))
    os.replace(path + '.tmp', path)


def missed(records):
    """The titles of the checks a grader skipped because it missed a stop
    (labs/gradelib.py's Missed), not for the learner's code."""
    return [r['title'] for r in records if r.get('kind') == 'test'
            and r['status'] == 'skip' and (r.get('reason') or '').startswith('missed: ')]


def answered(n, answers, lines, asked, task=False):
    """The grade's last words on the learner's part, apart from the
    kernel's checks: how many of the lab's questions they answered and
    got right (ASKED: an answers file was given for them; a TASK's grade
    speaks of the questions only then)."""
    keys = [k for k in facts.lab(n)['questions'] if not k.startswith('predict_')]
    kernel = [l for l in lines if l.startswith(('ok - ', 'not ok - ', 'skip - '))
              and not l.startswith(('ok - answer ', 'not ok - answer ', 'skip - answer '))]
    checks = "the kernel's checks: %d of %d passed" % (
        sum(l.startswith('ok - ') for l in kernel), len(kernel))
    if not asked:
        return checks + ('' if task else '; answers: none given (answers/lab%d.txt or ANSWERS=file; '
                         'labs/%d/README.md asks %d)' % (n, n, len(keys)) if keys else '')
    given = {k for k, v in answers if v and k in keys}
    right = sum(any(l.startswith('ok - answer %s = ' % k) for l in lines) for k in keys)
    return '%s; answers: %d of %d given, %d right' % (checks, len(given), len(keys), right)


ANSWERS_DIR = os.path.join(TOP, 'answers')


def answers_file(n, folder=None):
    """Where lab N's answers are by default: answers/labN.txt."""
    return os.path.join(folder or ANSWERS_DIR, 'lab%d.txt' % n)


def graded(argv, env):
    """Run one make grade for grade_all; its output lines and exit
    status. Its progress (the build, the guest) goes to stderr as it
    comes, but for make's own "*** ... Error 1" (a failed grade is a row
    of the table, not an error)."""
    import threading
    p = subprocess.Popen(['make', '-s', '--no-print-directory', '-C', TOP] + argv,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)

    def progress():
        for line in p.stderr:
            if not re.match(r'make(\[\d+\])?: \*\*\* ', line):
                sys.stderr.write(line)
    t = threading.Thread(target=progress)
    t.start()
    out = p.stdout.read()
    t.join()
    return out.splitlines(), p.wait()


def failed_checks(lines):
    """The titles of a make grade's own checks that did not pass (not its
    answers), for the table's notes."""
    return [l.split(' - ', 1)[1] for l in lines
            if l.startswith(('not ok - ', 'skip - '))
            and not l.startswith(('not ok - answer ', 'skip - answer '))]


def summary(lines):
    """'P of M checks' from a make grade's own checks (not its answers)."""
    checks = [l for l in lines if l.startswith(('ok - ', 'not ok - ', 'skip - '))
              and not l.startswith(('ok - answer ', 'not ok - answer '))]
    return sum(l.startswith('ok - ') for l in checks), len(checks)


def grade_all(folder=None):
    """make grade with no N: one table of every lab, from the learner's
    answers files (answers/labN.txt, or FOLDER/labN.txt): its task (the
    exercise of labs 2 and 3, graded on the learner's kernel; in the
    other labs, the lab's grader on its stage), its questions right, its
    predictions made. A lab not started costs nothing: no exercise tree,
    no answers file, no build, no guest. A stage that was never built is
    reported, not built."""
    from vm.session import exercise as exercises
    # The folders the learner gave last (make exercise, make grade N=k),
    # where this call names none.
    kept = folders.read()
    if not folder and 'ANSWERS' in kept:
        folder = kept['ANSWERS']
        say('answers from %s, the folder of the last ANSWERS you gave '
            '(ANSWERS=folder names another)' % folder)
    if not os.environ.get('EXERCISES') and 'EXERCISES' in kept:
        os.environ['EXERCISES'] = kept['EXERCISES']
        say('exercises from %s, the last EXERCISES you gave (EXERCISES=folder '
            'names another)' % kept['EXERCISES'])
    if folder and not os.path.isdir(folder):
        raise facts.Unknown("with no N, ANSWERS is a folder of labN.txt files, "
                            "not '%s' (make grade N=k ANSWERS=file grades one "
                            "lab)" % folder)
    env = {k: v for k, v in os.environ.items() if k != 'EXERCISE'}
    os.environ.pop('EXERCISE', None)
    rows, failures = [], []
    for n in facts.labs():
        lab = facts.lab(n)
        questions = {k: q for k, q in lab['questions'].items()
                     if not k.startswith('predict_')}
        preds = facts.predictions(n)
        path = answers_file(n, folder)
        answers = read_answers(path) if os.path.isfile(path) else None
        given = {k: v for k, v in answers or [] if v}
        task, right, unchecked = None, 0, 0
        if 'exercise' in lab and exercises.started(n):
            say('lab %d: grading your %s (%s)' % (
                n, 'task\'s file' if exercises.is_task(lab) else 'exercise kernel',
                folders.make_line('grade N=%d EXERCISE=1' % n)))
            out, rc = graded(['grade', 'N=%d' % n, 'EXERCISE=1',
                              'ANSWERS=/dev/null'], dict(env, EXERCISE='1'))
            ok, total = summary(out)
            task = ('exercise passed (%d checks)' % total if rc == 0 else
                    'incomplete: a stop was missed, run it again'
                    if 'the grade is incomplete' in '\n'.join(out) else
                    'exercise not passed (%d of %d checks)' % (ok, total))
            failures += ['lab %d, exercise: %s' % (n, t) for t in failed_checks(out)]
        observed = [k for k in questions if k in given and not why(questions[k])]
        # Whether the stage is built is asked only of a lab with an
        # observation to check (a program per lab would cost the table
        # most of its time).
        built = observed and subprocess.call([os.path.join(
            TOP, 'vm', 'host', 'kernel.sh'), '--built', str(lab['stage'])]) == 0
        run = None
        if observed and built:
            say('lab %d: checking your answers against a fresh guest of stage '
                '%s (make grade N=%d ANSWERS=%s)' % (n, lab['stage'], n, path))
            run, rc = graded(['grade', 'N=%d' % n, 'ANSWERS=%s' % path], env)
            if task is None and 'exercise' not in lab:
                # A lab with no exercise: its own grader is its task's
                # verdict (README: make grade). A lab whose exercise is
                # not started says so, whatever its grader found.
                ok, total = summary(run)
                task = ('lab checks passed (%d)' % total if ok == total and total
                        else 'lab checks: %d of %d passed' % (ok, total))
                failures += ['lab %d: %s' % (n, t) for t in failed_checks(run)]
        for key, q in questions.items():
            if key not in given:
                continue
            if why(q):
                right += reasoned(given[key], q)
            elif run is None:
                unchecked += 1
            else:
                right += any(l.startswith('ok - answer %s = ' % key) for l in run)
        if task is None and 'exercise' in lab:
            task = 'exercise not started (%s)' % folders.make_line('exercise N=%d' % n)
        if task is None:
            task = ('not started' if answers is None else
                    'stage %s not built (make lab N=%d)' % (lab['stage'], n)
                    if observed and not built else 'started: no observation answered yet')
        made = sum(1 for k in preds if k in given)
        rows.append((str(n), lab['title'], task,
                     '%d/%d right%s' % (right, len(questions), ', %d unchecked'
                                        % unchecked if unchecked else ''),
                     '%d/%d made' % (made, len(preds)) if preds else '-'))
    head = ('lab', 'title', 'task', 'questions', 'predictions')
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    total = [sum(int(r[i].split(' ')[0].split('/')[j]) for r in rows if r[i] != '-')
             for i, j in ((3, 0), (3, 1), (4, 0), (4, 1))]
    print('total: %d of %d questions right, %d of %d predictions made' % tuple(total))
    for line in failures:
        print('not passed: ' + line)
    where = folder or ANSWERS_DIR
    shown = (os.path.relpath(where) if not os.path.relpath(where).startswith('..')
             else os.path.abspath(where))
    print('answers: %s/labN.txt, "key = value" lines (each lab\'s README asks '
          'its keys); make grade N=k grades one lab%s' % (
              shown, '' if os.path.isdir(where) else
              '\n  (%s does not exist yet: mkdir %s, then write your answers there)'
              % (shown, shown)))
    return 0
