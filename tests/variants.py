"""Every choice of every lab's variant, graded once (make variants): that
the lab's own checks pass with it, and that its answers lie apart from
the book's and from every other choice's by more than the question's
tolerance (labs/N/lab.toml's [variant] comments give the figures this
measured). About 10 minutes; make check's check 96 grades two learners
only.

python3 -m tests.variants [N...]: only labs N...
"""
import os
import re
import subprocess
import sys

from vm.session import facts, results, variant
from vm.session.answers import same_answer

TOP = facts.TOP


def learner_for(n, key, value):
    """An id whose lab N variant KEY is VALUE."""
    entry = facts._lab_file(n)['variant'][key]
    if value == entry['book']:
        return variant.BOOK
    return next('sweep-%d' % i for i in range(10000)
                if variant.pick(n, key, entry, 'sweep-%d' % i) == value)


def grade(n, who, answers=None):
    """make grade N=n as learner WHO (with ANSWERS, a file): its output,
    and {question: this run's answer} from its records."""
    argv = [sys.executable, '-m', 'vm.session.ks', 'grade', str(n)] + ([answers] if answers else [])
    p = subprocess.run(argv, cwd=TOP, env=dict(os.environ, LEARNER=who, KS_KEEP_ANSWERS='1'),
                       capture_output=True, text=True)
    out = p.stdout + p.stderr
    m = re.search(r'; log: (\S+)\.log\)$', p.stdout.strip().splitlines()[-1]
                  if p.stdout.strip() else '')
    found = {r['key']: r['value'] for r in results.read(m.group(1) + '.jsonl', 'answer')} if m else {}
    return out, found


def own_checks_passed(out):
    return bool(re.search(r"the kernel's checks: (\d+) of \1 passed", out))


def main(labs):
    bad = 0
    for n in labs:
        table = facts._lab_file(n).get('variant', {})
        asked = [k for k, q in facts.lab(n)['questions'].items()
                 if not k.startswith('predict_') and 'answer' not in q and 'require' not in q]
        for key, entry in table.items():
            seen = {}
            for value in [entry['book']] + entry['choices']:
                out, found = grade(n, learner_for(n, key, value))
                ok, last = own_checks_passed(out), out.strip().splitlines()[-1:]
                seen[value] = found
                print('lab %d %s=%-28s %s  %s' % (n, key, value, 'ok  ' if ok else 'FAIL',
                      ' '.join('%s=%s' % (k, found.get(k)) for k in asked)), flush=True)
                if not ok:
                    bad += 1
                    print('    ' + ''.join(last))
            # Each question a variant moves: no two values within tolerance.
            for q in asked:
                values = {v: f[q] for v, f in seen.items() if q in f}
                if len(set(values.values())) == 1:
                    continue            # the kernel fixes it: not the variant's
                tol = facts.tolerance(n, q)
                close = [(a, b) for a in values for b in values if str(a) < str(b) and (
                    same_answer(values[a], values[b], tol) or same_answer(values[b], values[a], tol))]
                for a, b in close:
                    bad += 1
                    print('    lab %d %s: %s=%s and %s=%s lie within its tolerance'
                          % (n, q, key, a, key, b))
    print('%d problems' % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main([int(a) for a in sys.argv[1:]] or
                  [n for n in facts.labs() if facts._lab_file(n).get('variant')]))
