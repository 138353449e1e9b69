"""The project's facts, each read from its one file:

- vm/stages.toml: what each stage's kernel is built to show (THREAD_SIZE,
  IRQ stacks or not, the overflow check's warning line);
- labs/N/lab.toml: what lab N runs (its stage, gdb or crash, the guest's
  workload) and the questions of its answers file.

Plain Python with no gdb in it: vm/session/ks, the graders (inside gdb and out),
the checks, the experiments and the book all import it.
"""
import copy
import os
import re
import tomllib

from vm.session import variant

# The project's top folder: this file is TOP/vm/session/facts.py.
TOP = os.environ.get('TOP') or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class Unknown(Exception):
    """A lab or stage number that names nothing; the message lists the
    valid ones."""


_READ = {}


def _load(path):
    """PATH's TOML, parsed once per process; each caller gets its own copy
    (lab() adds to what it gets)."""
    if path not in _READ:
        with open(path, 'rb') as f:
            _READ[path] = tomllib.load(f)
    return copy.deepcopy(_READ[path])


def stages():
    """{stage number: its facts}, from vm/stages.toml."""
    table = _load(os.path.join(TOP, 'vm', 'stages.toml'))['stage']
    return {int(k): dict(v, number=int(k)) for k, v in table.items()}


def kernel():
    """Constants every stage's kernel shares (stack_end_magic)."""
    return _load(os.path.join(TOP, 'vm', 'stages.toml'))['kernel']


def extra_kernels():
    """{name: its row}: the kernels beside the series (lab 7's), from
    vm/stages.toml's [kernels.NAME] rows."""
    return _load(os.path.join(TOP, 'vm', 'stages.toml')).get('kernels', {})


def kernel_names():
    """Every kernel a lab may boot: the stages, then the kernels beside."""
    return [str(k) for k in sorted(stages())] + list(extra_kernels())


def stage(k):
    """Kernel K's facts: a stage's (K a number), or a row beside the
    series (K its name); each with its number (K), machine, tree and
    config fragments."""
    extra = extra_kernels()
    if str(k) in extra:
        return dict(extra[str(k)], number=str(k))
    table = stages()
    try:
        return dict(table[int(k)], machine='i386', tree=int(k), config=[])
    except (KeyError, ValueError):
        raise Unknown('unknown kernel %r; stages: %s; beside them: %s' % (
            k, ' '.join(map(str, sorted(table))), ' '.join(extra)))


def machine(k):
    """The record of the machine kernel K runs on (vm/stages.toml's
    [machine.NAME]), with its name. An exercise's kernel ("eN") is i386's,
    as every stage's."""
    return machine_record('i386' if str(k).startswith('e') else stage(k)['machine'])


def machine_record(name):
    """The record of machine NAME (i386, x86_64), with its name."""
    records = _load(os.path.join(TOP, 'vm', 'stages.toml'))['machine']
    if name not in records:
        raise Unknown('unknown machine %r; machines: %s' % (name, ' '.join(records)))
    return dict(records[name], name=name)


# Debian's names of the architectures Python's platform names.
DEBIAN_ARCH = {'x86_64': 'amd64', 'aarch64': 'arm64', 'arm64': 'arm64'}


def host():
    """This host's record (vm/hosts.toml), with its name: "cross" with
    HOST_CROSS=1 (an arm64 host's path, on amd64), else the machine's own
    architecture's. The one place that asks what the host is."""
    import platform
    records = _load(os.path.join(TOP, 'vm', 'hosts.toml'))['host']
    name = 'cross' if os.environ.get('HOST_CROSS', '0') not in ('', '0') else \
        DEBIAN_ARCH.get(platform.machine(), platform.machine())
    if name not in records:
        raise Unknown('no record of a %s host in vm/hosts.toml (hosts: %s)' % (
            name, ' '.join(r for r in records if r != 'cross')))
    return dict(records[name], name=name)


def toolchain(machine_name):
    """How this host builds and debugs MACHINE_NAME's guests: {cross,
    crash (its command, $BUILD spelled out), gdb}."""
    h = host()
    build = os.environ.get('BUILD') or os.path.join(TOP, 'build')
    tc = dict(h[machine_name], gdb=h['gdb'])
    tc['crash'] = [w.replace('$BUILD', build) for w in tc['crash']]
    return tc


def labs():
    """The lab numbers: the folders labs/N that hold a lab.toml."""
    root = os.path.join(TOP, 'labs')
    return sorted(int(d) for d in os.listdir(root) if d.isdigit() and
                  os.path.isfile(os.path.join(root, d, 'lab.toml')))


def task_labs():
    """The labs whose exercise is a task: a file the learner writes
    (an [exercise] with no base stage)."""
    return [n for n in labs() if 'base' not in _lab_file(n).get('exercise', {'base': 0})]


def kernel_exercise_labs():
    """The labs whose exercise is a kernel of the learner's own (an
    [exercise] with a base stage)."""
    return [n for n in labs() if 'base' in _lab_file(n).get('exercise', {})]


def _lab_file(n):
    return _load(os.path.join(TOP, 'labs', str(n), 'lab.toml'))


def exercise():
    """EXERCISE=1: the lab runs the learner's own exercise or task, not
    the project's stage. Read here only. Unset, empty or 0 means not the
    exercise, and nothing else; any other value is refused, not guessed."""
    value = os.environ.get('EXERCISE', '')
    if value not in ('', '0', '1'):
        raise Unknown("EXERCISE='%s': EXERCISE=1 runs your exercise, "
                      "EXERCISE=0 (or none) the lab's own kernel" % value)
    return value == '1'


def lab(n):
    """Lab N's facts: the keys of labs/N/lab.toml, with defaults, plus
    number, folder, the stage's facts (stage_facts) and, for the guest's
    workload, the path /init runs in the guest (guest_path)."""
    valid = labs()
    if not str(n).isdigit() or str(n) != str(int(n)) or int(n) not in valid:
        raise Unknown("unknown lab N='%s'; valid labs: %s (e.g. make lab "
                      "N=%d)" % (n, ' '.join(map(str, valid)), valid[0]))
    n = int(n)
    folder = os.path.join(TOP, 'labs', str(n))
    facts = {'kind': 'gdb', 'guest': '', 'questions': {}, 'banner': '',
             'guest_may_die': False, 'stop': '', 'at_stop': []}
    facts.update(_load(os.path.join(folder, 'lab.toml')))
    # KERNEL= (make lab N=7 KERNEL=x86_64-novmap): another kernel of the
    # lab's machine, for the lab asked for (KERNEL_FOR, which vm/session/ks
    # sets: the other labs it reads keep their own).
    other = os.environ.get('KERNEL')
    if os.environ.get('KERNEL_FOR', str(n)) != str(n):
        other = None
    if other and exercise():
        raise Unknown('KERNEL=%s and EXERCISE=1: with EXERCISE=1 the lab runs '
                      'your exercise\'s kernel; leave one of them out' % other)
    if other and other != str(facts['stage']):
        if machine(other)['name'] != machine(facts['stage'])['name']:
            raise Unknown('KERNEL=%s runs on %s; lab %d\'s kernels on %s: %s' % (
                other, machine(other)['name'], n, machine(facts['stage'])['name'],
                ' '.join(k for k in kernel_names() if machine(k)['name'] ==
                         machine(facts['stage'])['name'])))
        facts.update(own_kernel=facts['stage'], stage=stage(other)['number'])
    facts.update(number=n, folder=folder,
                 stage_facts=stage(facts['stage']))
    # EXERCISE=1 (make grade N=2 EXERCISE=1): the lab runs the learner's
    # kernel, which is meant to show the exercise's facts.
    mine = exercise()
    task = 'exercise' in facts and 'base' not in facts['exercise']
    if mine and task:
        # A task (labs 0, 1, 5, 6, 7: an exercise with no base stage): a file
        # of the learner's own, graded by the task's grader on a stage's
        # kernel (the exercise's stage, else the lab's), the guest running
        # the exercise's guest (a path in the guest) if it names one.
        facts.update(stage=facts['exercise'].get('stage', facts['stage']),
                     kind=facts['exercise'].get('kind', facts['kind']))
        facts['stage_facts'] = stage(facts['stage'])
    elif mine:
        if 'exercise' not in facts:
            raise Unknown('lab %d has no exercise (labs with one: %s)' % (
                n, ' '.join(str(k) for k in valid if 'exercise' in
                            _load(os.path.join(TOP, 'labs', str(k), 'lab.toml')))))
        # Solved, the exercise's kernel has the facts of the lab's stage,
        # or of the stage it names (like: lab 4's task is stage 2's check).
        like = stage(facts['exercise'].get('like', facts['stage']))
        facts.update(lab_stage=facts['exercise'].get('like', facts['stage']),
                     stage='e%d' % n, stage_facts=dict(
                         like, **facts['exercise'].get('stage_facts', {})))
    # The initramfs carries labs/N/guest.sh as /labs/N/guest.sh.
    facts['guest_path'] = ('/labs/%d/%s' % (n, facts['guest'])
                           if facts['guest'] else '')
    # The lab's grader, its stop (and the commands run there, at_stop),
    # its banner, and what its guest adds to the kernel's command line; an
    # exercise may have its own of each (lab 4's task: its own grader and
    # stop, the lab's workload made otherwise). An exercise with a stop of
    # its own has its own at_stop too.
    facts['grader'] = os.path.join(folder, 'grade.py')
    facts.setdefault('append', '')
    if mine:
        ex = facts['exercise']
        if 'guest' in ex:
            facts['guest_path'] = ex['guest']
        if 'grader' in ex:
            facts['grader'] = os.path.join(folder, ex['grader'])
        if 'stop' in ex:
            facts.update(stop=ex['stop'], at_stop=ex.get('at_stop', []))
        facts['banner'] = ex.get('banner', facts['banner'])
        facts['append'] = ex.get('append', facts['append'])
        facts['guest_may_die'] = ex.get('guest_may_die', facts['guest_may_die'])
    # The learner's variant of the numbers the lab asks (vm/session/variant.py):
    # the graders judge against it, the banner says it, and the lab's own
    # guest gets its words. A task, or an exercise with a grader of its
    # own, runs as the book's: it judges the learner's code, not their
    # numbers. A kernel exercise graded by the lab's grader (labs 2 and 3)
    # is the lab again, answers and all, on the learner's kernel.
    table = facts.get('variant', {})
    own = mine and (task or 'grader' in facts['exercise'])
    try:
        who = variant.learner() if table and not own else variant.BOOK
    except variant.BadLearner as e:
        raise Unknown(str(e))
    facts['variant'] = variant.of(n, table, who)
    if table and not own:
        facts['banner'] = facts['banner'].rstrip('\n') + '\n%s (LEARNER=%s): %s\n' % (
            "The book's variant" if who == variant.BOOK else 'Your variant', who,
            '; '.join(variant.says(table, facts['variant'])))
        if who != variant.BOOK:      # the guest's defaults are the book's
            facts['append'] = ' '.join(w for w in (
                facts['append'], variant.append_words(table, facts['variant'])) if w)
    # A host grader runs as a module (python3 -m, from the top).
    facts['grader_module'] = os.path.relpath(facts['grader'], TOP)[:-3].replace(os.sep, '.')
    return facts


def banner_commands(banner):
    """The commands a lab's BANNER offers, in order: the command column of
    its "  COMMAND   what it shows" lines (two spaces in; a line indented
    further continues the one above)."""
    return [m.group(1) for m in re.finditer(r'^  (\S.*?)(?:\s{2,}.*)?$', banner, re.M)]


def predictions(n):
    """Lab N's predictions: {predict_KEY: its facts}, the questions whose
    key starts with predict_; each names in observed the grader's record
    it is shown beside."""
    return {k: q for k, q in lab(n)['questions'].items()
            if k.startswith('predict_')}


def tolerance(n, key):
    """How far, in percent, a learner's answer KEY to lab N may be from
    the grader's own run (KEY: a question, or what a prediction is
    compared with, its observed); Unknown if lab N has no such key."""
    questions = lab(n)['questions']
    if key in questions:
        return questions[key].get('tolerance', 0)
    for q in predictions(n).values():
        if q.get('observed') == key:
            return q.get('tolerance', 0)
    raise Unknown('lab %d asks no question %r (it asks: %s)' % (
        n, key, ' '.join(questions)))


def _shell(argv):
    """What the shell scripts ask (vm/host/info.sh): one answer a line."""
    what, args = argv[0], argv[1:]
    if what == 'kernel':          # kernel K FIELD: a field of its row
        value = stage(args[0])[args[1]]
        print('\n'.join(map(str, value)) if isinstance(value, list) else value)
    elif what == 'machine':         # machine K FIELD: of its machine's record
        value = machine(args[0])[args[1]]
        print('\n'.join(map(str, value)) if isinstance(value, list) else value)
    elif what == 'record':          # record NAME FIELD: of machine NAME
        value = machine_record(args[0])[args[1]]
        print('\n'.join(map(str, value)) if isinstance(value, list) else value)
    elif what == 'toolchain':       # toolchain MACHINE FIELD: this host's, for it
        value = toolchain(args[0])[args[1]]
        print('\n'.join(map(str, value)) if isinstance(value, list) else value)
    elif what == 'host':            # host FIELD: this host's record's
        value = host()[args[0]]
        print('\n'.join(map(str, value)) if isinstance(value, list) else value)
    elif what == 'busyboxes':       # each machine's: folder, package
        for name in _load(os.path.join(TOP, 'vm', 'stages.toml'))['machine']:
            m = machine_record(name)
            print(m['busybox'], m['busybox_package'])
    elif what == 'make':            # what the Makefile reads (vm/host/info.sh make)
        # Each lab's own image: KERNEL= may only name a kernel of the
        # same machine, and EXERCISE=1 runs the lab's machine too.
        for name in ('KERNEL', 'KERNEL_FOR', 'EXERCISE'):
            os.environ.pop(name, None)
        print('LABS := %s' % ' '.join(map(str, labs())))
        print('TASK_LABS := %s' % ' '.join(map(str, task_labs())))
        print('KERNEL_EXERCISE_LABS := %s' % ' '.join(map(str, kernel_exercise_labs())))
        print('BUSYBOXES := %s' % ' '.join('$(BUILD)/deps/%s/bin/busybox' % machine_record(m)['busybox']
                                           for m in _load(os.path.join(TOP, 'vm', 'stages.toml'))['machine']))
        print('EXTRA := %s' % ' '.join(extra_kernels()))
        # This host's compilers and gdb (vm/hosts.toml), exported to the
        # scripts so that a warm make asks no program for them.
        print('HOST_RECORD := %s' % host()['name'])
        print('HOST_GDB := %s' % host()['gdb'])
        for m in _load(os.path.join(TOP, 'vm', 'stages.toml'))['machine']:
            print('CROSS_%s := %s' % (m, toolchain(m)['cross']))
        print('IMAGES := %s' % ' '.join('$(BUILD)/' + machine_record(m)['initramfs'] for m in
                                        _load(os.path.join(TOP, 'vm', 'stages.toml'))['machine']))
        for n in labs():
            print('LAB_IMAGE_%d := %s' % (n, machine(lab(n)['stage'])['initramfs']))
    else:
        raise SystemExit('usage: facts.py kernel K FIELD | machine K FIELD | record MACHINE FIELD | '
                         'toolchain MACHINE FIELD | host FIELD | busyboxes | make')


if __name__ == '__main__':
    import sys
    try:
        _shell(sys.argv[1:])
    except (Unknown, KeyError, IndexError) as e:
        raise SystemExit('facts.py: %s' % e)
