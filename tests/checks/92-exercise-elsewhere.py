# A learner's exercise folder anywhere (EXERCISES=/some/folder, outside
# the checkout): lab 4's kernel task, as a learner takes it there.
#  - make exercise N=4 makes the tree there, and every next step it
#    prints names that EXERCISES;
#  - make grade N=4 EXERCISE=1 passes the reference solution, with the
#    kernel's lx-* helpers loaded (gdb's auto-load safe path covers the
#    folder) and the lab module's symbols found;
#  - make lab N=4 EXERCISE=1: $lx_per_cpu and the module's functions
#    work at the stop;
#  - make replay N=4 EXERCISE=1 keeps its recording in that folder, so
#    two learners' folders never share one.
# The folder is kept between runs (in the system's temporary folder,
# named for this checkout), so that a second run rebuilds nothing.
import hashlib
import os
import re
import subprocess
import tempfile

from tests.checklib import TOP, expect, facts, ks, log
from vm.session import exercise

ELSEWHERE = os.path.join(tempfile.gettempdir(), 'kstack-learner-%s' % hashlib.sha256(
    TOP.encode()).hexdigest()[:8])
os.environ['EXERCISES'] = ELSEWHERE
N = 4
expect(not os.path.realpath(ELSEWHERE).startswith(os.path.realpath(TOP) + os.sep),
       'the learner\'s folder lies outside the checkout (%s)' % ELSEWHERE)

if exercise.stale(N):
    subprocess.call(['rm', '-rf', os.path.dirname(exercise.tree(N))])
rc, out, _ = ks('exercise', N, exercise=False)
src = exercise.tree(N)
steps = [l for l in out.splitlines() if re.match(r'\s+(grade it|step through|back in time):', l)]
expect(rc == 0 and os.path.isdir(os.path.join(src, '.git')) and src.startswith(ELSEWHERE)
       and len(steps) == 3 and all('EXERCISES=%s' % ELSEWHERE in l for l in steps),
       'make exercise N=4 EXERCISES=%s makes the tree there, and each next step it '
       'prints names that folder' % ELSEWHERE, out.strip()[-600:])

exercise.git(src, 'checkout', '-q', '-f', 'skeleton')
exercise.git(src, 'clean', '-fdq')
for patch in facts.lab(N)['exercise']['solution']:
    exercise.apply(src, os.path.join(TOP, patch))

rc, out, took = ks('grade', N)
last = out.strip().splitlines()[-1] if out.strip() else ''
gdb_log = re.search(r'log: (\S+)\)$', last)
with open(gdb_log.group(1) if gdb_log else os.devnull, errors='replace') as f:
    said = f.read()
declined = [l for l in said.splitlines() if 'auto-loading has been declined' in l
            or 'helpers are not loaded' in l]
expect(rc == 0 and ' 0 failed' in last and not declined,
       'make grade N=4 EXERCISE=1 passes the reference there, with the lx-* helpers '
       'loaded (%.0f s)' % took, '%s %s' % (last, declined[:2]))

# The task's stop comes during boot, before the module is loaded: on to
# a function of the module, whose symbols must come from this folder.
rc, out, took = ks('lab', N, stdin=b'p $lx_per_cpu("current_task")->comm\n'
                   b'set breakpoint pending on\nbreak wait_at_bottom\ncontinue\n'
                   b'info symbol $pc\nquit\n', env={'AHEAD': '0'})
expect(re.search(r'\$1 = "[^"]+"', out) and
       re.search(r'wait_at_bottom(?: \+ \d+)? in section \.text of %s/4/modules/src/'
                 r'stackdeep\.ko' % re.escape(ELSEWHERE), out) and
       'Invalid data type' not in out and 'not loaded' not in out,
       'make lab N=4 EXERCISE=1 there: $lx_per_cpu works and the lab module\'s '
       'wait_at_bottom stops, its symbols from the learner\'s folder (%.0f s)' % took,
       out.strip()[-600:])

rc, out, took = ks('replay', N, stdin=b'monitor info replay\n')
recording = os.path.join(ELSEWHERE, str(N), 'replay', 'replay.bin')
expect('instruction count = ' in out and os.path.isfile(recording) and
       os.path.getsize(recording) > 0,
       'make replay N=4 EXERCISE=1 records into the learner\'s folder (%s) and replays '
       'it (%.0f s)' % (recording, took), out.strip()[-600:])
# Another learner's folder: another recording's place.
from vm.session import replay   # noqa: E402  (reads EXERCISES at each call)
os.environ['EXERCISE'] = '1'          # the exercise's kernel, as make replay's
mine = replay.folder(facts.lab(N))
os.environ['EXERCISES'] = ELSEWHERE + '-other'
theirs = replay.folder(facts.lab(N))
os.environ['EXERCISES'] = ELSEWHERE
del os.environ['EXERCISE']
log('recordings: %s and %s' % (mine, theirs))
expect(mine != theirs and mine.startswith(ELSEWHERE + os.sep) and
       theirs.startswith(ELSEWHERE + '-other' + os.sep),
       'two learners\' exercise folders keep their replays apart', (mine, theirs))
