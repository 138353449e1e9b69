"""vm/session/kernels.py: what a run needs built first: a stage's kernel
and lab modules (vm/host/stage.sh: no-ops when nothing changed), and
the next lab's stage, ahead, while this one is studied."""
import os
import subprocess
import sys

from vm.session import facts
from vm.session.session import TOP


def build(stage):
    """The stage's kernel and lab modules, built if anything changed."""
    rc = subprocess.call([os.path.join(TOP, 'vm', 'host', 'stage.sh'), str(stage)])
    if rc:
        sys.exit(rc)


def build_ahead(n):
    """The next lab's stage builds while lab N is studied (not while the
    learner works on their own kernel)."""
    later = [k for k in facts.labs() if k > n]
    if later and not facts.exercise():
        subprocess.call([os.path.join(TOP, 'vm', 'host', 'ahead.sh'),
                         str(facts.lab(later[0])['stage'])])
