"""The learner's own folders: where their exercises are (EXERCISES) and
their answers (ANSWERS).

A learner may keep them anywhere (README: Variables). Two things follow:

  - every next step printed for them names the folder they gave, so
    that it can be typed as printed (make_line);
  - the folders given last are kept in the build folder
    (build/learner-folders), so that make grade's table, which is run
    with no variables, grades the same work (remembered).
"""
import os
import shlex

from vm.session.session import BUILD

KEPT = os.path.join(BUILD, 'learner-folders')
DEFAULT_EXERCISES = os.path.join(BUILD, 'exercises')


def _given(name):
    """NAME's value from the environment (make passes its command line
    there), or None when it is unset or the default."""
    value = os.environ.get(name)
    if not value:
        return None
    if name == 'EXERCISES' and os.path.realpath(value) == os.path.realpath(DEFAULT_EXERCISES):
        return None
    return os.path.abspath(value)


def make_line(words):
    """'make WORDS', with EXERCISES=... added when the learner gave one."""
    folder = _given('EXERCISES')
    return 'make ' + words + (' EXERCISES=%s' % shlex.quote(folder) if folder else '')


def read():
    """{'EXERCISES': ..., 'ANSWERS': ...}: the folders kept, those that
    still exist."""
    kept = {}
    try:
        with open(KEPT) as f:
            for line in f:
                name, _, value = line.rstrip('\n').partition('=')
                if name in ('EXERCISES', 'ANSWERS') and os.path.isdir(value):
                    kept[name] = value
    except OSError:
        pass
    return kept


def remember(answers_file=None):
    """Keep the EXERCISES the learner gave, and the folder of the answers
    file they named (ANSWERS=folder/labN.txt), for make grade's table."""
    kept = read()
    if _given('EXERCISES'):
        kept['EXERCISES'] = _given('EXERCISES')
    elif os.environ.get('EXERCISES'):
        kept.pop('EXERCISES', None)      # the default, given again
    if os.environ.get('ANSWERS') and answers_file:
        folder = os.path.dirname(os.path.abspath(answers_file))
        if os.path.basename(answers_file).startswith('lab'):
            kept['ANSWERS'] = folder
    if kept == read():
        return
    try:
        os.makedirs(BUILD, exist_ok=True)
        with open(KEPT + '.tmp', 'w') as f:
            f.write(''.join('%s=%s\n' % kv for kv in sorted(kept.items())))
        os.replace(KEPT + '.tmp', KEPT)
    except OSError:
        pass        # a read-only build folder (a class's sandbox): no table to serve
