# The build cache's layout is written in two languages: vm/host/lib.sh
# (the shell build scripts) and vm/session/session.py (the session layer,
# which boots and debugs what they built). Both must name the same
# folders and the same machine (lib.sh's karch, session.arch), or a lab
# boots a kernel other than the one just built, or in the wrong QEMU.
# Asked of both, for every stage, every kernel beside them (lab 7's) and
# an exercise, with
# EXERCISES moved away as a check moves it.
import os
import subprocess
import tempfile

from vm.session import facts
from vm.session import session
from tests.checklib import TOP, expect, stages

kinds = [str(k) for k in stages()] + list(facts.extra_kernels()) + ['e2']
with tempfile.TemporaryDirectory() as elsewhere:
    os.environ['EXERCISES'] = elsewhere
    shell = subprocess.run(
        ['sh', '-c', '. "$TOP/vm/host/lib.sh"; for k in "$@"; do '
         'echo "$k $(stage_src "$k") $(stage_obj "$k") $(karch "$k")"; done', 'layout']
        + kinds, env=dict(os.environ, TOP=TOP), stdout=subprocess.PIPE,
        text=True, check=True).stdout.splitlines()
    for line in shell:
        k, src, obj, arch = line.split()
        python = (session.stage_src(k), session.stage_obj(k), session.arch(k))
        expect(python == (src, obj, arch), 'stage %s: vm/host/lib.sh and '
               'vm/session/session.py name the same tree, objects and machine '
               '(%s, %s)' % (k, src, arch), 'shell %s %s %s, Python %s %s %s'
               % ((src, obj, arch) + python))

def missing(lines, names):
    """The kernels of NAMES that no line of the shell's answer is about."""
    return sorted(set(names) - {line.split()[0] for line in lines})


# Every kernel the facts name (vm/stages.toml's stages and rows), and an
# exercise, named here without the list the shell was asked about.
names = [str(k) for k in facts.kernel_names()] + ['e2']
expect(not missing(shell, names), 'the layout of every kernel the facts name (%s) and '
       'an exercise was compared' % ' '.join(names), missing(shell, names))
# It can fail: an answer that leaves a kernel out is caught.
expect(missing(shell[:-1], names) == [shell[-1].split()[0]],
       'a shell answer that leaves out one kernel (%s) is caught' % shell[-1].split()[0],
       missing(shell[:-1], names))
