#!/usr/bin/env python3
"""vm/session/ks: the labs' entry points, behind make.

  ks valid N            succeed quietly if lab N exists, else list the labs
  ks stage N            print lab N's stage (for shell scripts)
  ks lab N              boot lab N's stage halted, attach gdb, run the lab's
                        lab to its stop (lab.toml), hand gdb to the learner
  ks grade N [ANSWERS]  run lab N's grader against a fresh guest; with
                        ANSWERS, also check the learner's answers file
                        (and show its predictions beside the run's)
  ks grade-all [DIR]    every lab in one table: task, questions right,
                        predictions made, from DIR/labN.txt (answers/);
                        labs not started cost nothing
  ks exercise N         make lab N's exercise tree (the learner's kernel;
                        an [exercise] with a base) or task file (one without);
                        EXERCISE=1 makes lab and grade use it
  ks hint N             the next hint for lab N's exercise
  ks replay N           record lab N's run on one CPU, then open gdb on
                        its replay, at the death or the lab's stop: gdb
                        runs it backwards too (vm/session/replay.py)
  ks boot K             boot stage K with its console on this terminal
  ks crash K            open a dump of stage K after lab 6's panic in crash

Each builds what is missing first (vm/session/kernels.py: vm/host/kernel.sh,
vm/host/modules.sh, no-ops when nothing changed). Grading is
vm/session/grading.py's: make grade, the table, and (as functions) any
caller that grades. What a lab runs is in labs/N/lab.toml; the guest
and gdb are vm/session/session.py's.
"""
import os
import subprocess
import sys

from vm.session import facts
from vm.session import folders
from vm.session.grading import grade, grade_all, task_file
from vm.session.kernels import build, build_ahead
from vm.session.session import GUARD, TIMEOUT, Guest, GuestError, lab_scripts, say

# A lab's first stop must come within LAB_TIMEOUT seconds.
LAB_TIMEOUT = int(os.environ.get('LAB_TIMEOUT') or TIMEOUT)


def lab(n):
    lab = facts.lab(n)
    mine = task_file(n, lab)
    if mine and not (lab['kind'] == 'gdb' and mine.endswith('.py')):
        raise facts.Unknown("lab %d's task is graded by %s; make lab N=%d "
                            "(without EXERCISE) opens the lab itself"
                            % (n, folders.make_line('grade N=%d EXERCISE=1' % n), n))
    build(lab['stage'])
    if lab['kind'] == 'crash':
        from vm.session import crash
        build_ahead(n)
        print(lab['banner'].strip())
        return subprocess.call(crash.command(lab['stage'], quiet=False, append=lab['append']))
    with Guest(lab['stage'], lab['guest_path'], append=lab['append'], halted=True, keep_dead=True) as guest:
        say('lab %d: stage %s halted, gdb port %d, run folder %s'
            % (n, guest.stage, guest.port, guest.run))
        if 'lab_stage' in lab:
            # The lab's banner names the lab's own stage.
            say('this is your exercise kernel, not stage %s: the banner '
                'below says what your kernel should do' % lab['lab_stage'])
        if 'own_kernel' in lab:
            say('KERNEL=%s: not lab %d\'s own kernel (%s), whose run the banner '
                'below describes; vm/stages.toml says how the two differ'
                % (lab['stage'], n, lab['own_kernel']))
        if mine:
            say("lab %d's task: stage %s, where it is graded, with your %s "
                "loaded (after an edit: source it again)" % (n, lab['stage'], mine))
        guest.deadline(LAB_TIMEOUT)
        build_ahead(n)
        serial = guest.path('serial.log')
        if os.environ.get('TMUX'):
            # tail --pid ends the pane when QEMU ends.
            subprocess.call(['tmux', 'split-window', '-v', '-d', '-l', '10',
                             'tail --pid=%d -n +1 -f %s' % (guest.qemu.pid, serial)])
        else:
            say('serial console: tail -f %s  (inside tmux it opens in a pane)'
                % serial)
        rc = guest.gdb_interactive(
            lab_scripts(lab) +
            (['-x', mine, '-ex', 'echo ks: your task\'s file is loaded too: %s '
              '(after an edit: source it again)\\n' % mine] if mine else []) +
            ['-ex', 'python lab_reached()'])
        if os.path.exists(guest.path('lab-died')):
            say("lab %d: the kernel died before the lab's stop; its post-mortem "
                "is in %s" % (n, guest.path('postmortem.txt')))
            rc = rc or 1
        elif not os.path.exists(guest.path('lab-stopped')):
            print(guest.explain("lab %d: the guest never reached the lab's stop"
                                % n), file=sys.stderr)
            rc = rc or 1
        elif not guest.alive():
            print(guest.explain('the guest ended while gdb was attached: %s'
                                % guest.end_cause()),
                  file=sys.stderr)
        return rc


def replay(n):
    from vm.session import exercise, replay as rr

    def replayable(k):
        lab = facts.lab(k)
        return lab['kind'] == 'gdb' and not (facts.exercise() and exercise.is_task(lab))
    lab = facts.lab(n)
    if not replayable(n):
        raise facts.Unknown('%s is no gdb session on a kernel of its own, so '
                            'there is nothing to replay under gdb; labs that are%s: '
                            'make replay N=k for k in %s' % (
                                "lab %d's task" % n if facts.exercise() else
                                'lab %d (a post-mortem in crash)' % n,
                                ' with EXERCISE=1' if facts.exercise() else '',
                                ' '.join(str(k) for k in facts.labs() if replayable(k))))
    build(lab['stage'])
    say('lab %d: recording its run on one CPU (QEMU record/replay)' % n)
    info = rr.record(lab)
    rr.said(info)
    with rr.replay_guest(lab) as guest:
        say('lab %d: replaying the recording, halted, gdb port %d, run folder %s; '
            'a snapshot every %g s on the way' % (n, guest.port, guest.run, rr.SNAPSHOT_EVERY))
        guest.deadline(LAB_TIMEOUT)
        rc = guest.gdb_interactive(
            ['-x', GUARD, '-ex', 'ks-open-replay %s%d' % ('-died ' if info['died'] else '', n),
             '-ex', 'python lab_reached()'], env={'KS_REPLAY': '1'})
        target = 'the death its recording saw' if info['died'] else "the lab's stop"
        if os.path.exists(guest.path('deadline-passed')):
            # LAB_TIMEOUT is many times what a replay to its death takes
            # (lab 7's: about 8 s, after 3 s of recording).
            print(guest.explain(
                'lab %d: the replay did not reach %s within %d s: QEMU\'s replay '
                'may have stopped following its log (%s); make replay N=%d '
                'records the run again' % (n, target, LAB_TIMEOUT, os.path.join(
                    info['folder'], rr.LOG), n)), file=sys.stderr)
            rc = rc or 1
        elif not (os.path.exists(guest.path('lab-died')) or
                  os.path.exists(guest.path('lab-stopped'))):
            print(guest.explain('lab %d: the replay ended before %s' % (n, target)),
                  file=sys.stderr)
            rc = rc or 1
    return rc


def boot(k):
    facts.stage(k)
    build(k)
    return Guest(int(k)).console()


def exercise(n):
    from vm.session import exercise
    folders.remember()
    src = exercise.make(n)
    grade_it = folders.make_line('grade N=%d EXERCISE=1' % n)
    if exercise.is_task(facts.lab(n)):
        print("Lab %d's task: your file is %s\n"
              '  what to write: its comments, and labs/%d/README.md ("Task")\n'
              '  grade it:      %s\n'
              '  hints:         %s   (one more each time)'
              % (n, src, n, grade_it, folders.make_line('hint N=%d' % n)))
        return 0
    print('Lab %d\'s exercise: your kernel tree is %s\n'
          '  its TODOs:    git -C %s grep -n TODO -- arch/x86/kernel/irq_32.c\n'
          '  grade it:     %s   (builds what you changed)\n'
          '  step through: %s\n'
          '  back in time: %s'
          % (n, src, src, grade_it, folders.make_line('lab N=%d EXERCISE=1' % n),
             folders.make_line('replay N=%d EXERCISE=1' % n))
          + ('' if exercise.stale(n) else
                                   '\n  start over:   git -C %s checkout -f skeleton '
                                   '&& git -C %s clean -fd' % (src, src)))
    return 0


def hint(n):
    """The exercise's hints so far, and one more each time; the lab's
    README gives the first, so the first call shows the second too. The
    count is kept beside the tree."""
    from vm.session import exercise
    lab = facts.lab(n)
    hints = lab.get('exercise', {}).get('hints')
    if not hints:
        raise facts.Unknown('lab %d has no exercise hints' % n)
    seen = os.path.join(os.path.dirname(exercise.tree(n)), 'hints-shown')
    try:
        with open(seen) as f:
            shown = int(f.read())
    except (OSError, ValueError):
        shown = 1                # the README's
    shown = min(shown + 1, len(hints))
    os.makedirs(os.path.dirname(seen), exist_ok=True)
    with open(seen, 'w') as f:
        f.write('%d\n' % shown)
    import textwrap
    for i, text in enumerate(hints[:shown]):
        print(textwrap.fill(text + (' (the README\'s)' if i == 0 else ''), 72,
                            initial_indent='%d. ' % (i + 1), subsequent_indent='   '))
    print('(%d of %d hints%s)' % (shown, len(hints), '; %s shows the next'
                                  % folders.make_line('hint N=%d' % n)
                                  if shown < len(hints) else ''))
    return 0


def crash_cmd(n):
    """make crash N=n: the dump of stage n, or, for a lab whose kernel is
    no stage (lab 7's x86_64 kernel), of that lab's kernel."""
    from vm.session import crash
    kernels = {str(k): k for k in facts.stages()}
    for lab in map(facts.lab, facts.labs()):
        kernels.setdefault(str(lab['number']), lab['stage'])
    if str(n) not in kernels:
        raise facts.Unknown('unknown N=%s for make crash: a stage (%s), or lab '
                            '%s for its own kernel' % (n, ' '.join(
                                str(k) for k in facts.stages()), ' or '.join(
                                k for k, v in kernels.items() if k != str(v))))
    k = kernels[str(n)]
    build(k)
    # DUMP=file: a dump a hung lab left (labs/guard.py), not lab 6's.
    argv = crash.command(k, quiet=False, vmcore=os.environ.get('DUMP') or None)
    if facts.machine(k)['paged_dump'] and not os.environ.get('DUMP'):
        say('crash starts in CPU 0\'s idle task (--no_panic: vm/session/'
            'crash.py says why): ps, then bt PID of the task that died. The '
            'same panic in drgn: drgn -c %s.paged -s %s, then '
            'prog.crashed_thread().stack_trace()' % (argv[-1], argv[-2]))
    return subprocess.call(argv)


def main(argv):
    commands = {'valid': lambda n: 0, 'stage': lambda n: print(facts.lab(n)['stage']),
                'lab': lab, 'exercise': exercise, 'hint': hint,
                'grade': grade, 'boot': boot, 'crash': crash_cmd,
                'grade-all': grade_all, 'replay': replay}
    if argv[:1] == ['grade-all'] or argv == ['grade']:
        return grade_all(*argv[1:2] if argv[0] == 'grade-all' else ())
    if len(argv) < 2 or argv[0] not in commands:
        sys.exit(__doc__.strip())
    args = argv[1:]
    # KERNEL= is for the lab asked for, not the others ks reads of (the
    # next lab's stage, make crash's list): vm/session/facts.py.
    if os.environ.get('KERNEL'):
        os.environ.setdefault('KERNEL_FOR', str(args[0]))
    if argv[0] in ('lab', 'grade', 'valid', 'stage', 'exercise', 'hint', 'replay'):
        args[0] = facts.lab(args[0])['number']
    return commands[argv[0]](*args)


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except (facts.Unknown, GuestError) as e:
        sys.exit('%s: error: %s' % ('ks', e))
    except KeyboardInterrupt:
        sys.exit(130)
