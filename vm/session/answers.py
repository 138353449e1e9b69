"""vm/session/answers.py: a learner's answers file, judged.

A lab's questions (labs/N/lab.toml, [questions]) are of three kinds: an
observation, judged against what this run's grader found (its answer
records); a "why", judged against the lab's facts (a letter, or the
idea's words); a prediction (predict_...), shown beside what the run
observed and not scored. vm/session/grading.py's grade() calls check_answers().
"""
from vm.session import facts
from vm.session.session import GuestError


def read_answers(path):
    """The learner's answers file: "key = value" lines; # comments."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise GuestError("cannot read the answers file '%s': %s" % (path, e.strerror))
    except UnicodeDecodeError as e:
        raise GuestError("the answers file '%s' is not text (byte %d is not UTF-8): "
                         "write it as 'key = value' lines, as the lab's README "
                         "shows" % (path, e.start))
    answers = []
    for line in lines:
        if line.strip() and not line.lstrip().startswith('#'):
            key, _, value = line.partition('=')
            answers.append((key.strip(), value.strip()))
    return answers


def number(text):
    try:
        return int(text, 0)
    except ValueError:
        return None


def same_answer(given, found, tolerance):
    """Equal text, or numbers (decimal or 0x hex) at most TOLERANCE
    percent apart."""
    if given == found:
        return True
    g, f = number(given), number(found)
    return g is not None and f is not None and abs(g - f) * 100 <= abs(f) * tolerance


def how_far(given, found, word):
    """How far GIVEN is from FOUND, in kind, never the value: a word off
    (a frame's saved register, the wrong end of a slot),
    about half or twice, too high or too low; None where the two are not
    both numbers."""
    g, f = number(given), number(found)
    if g is None or f is None:
        return None
    d = g - f
    side = 'too high' if d > 0 else 'too low'
    # One word off: a saved register or a slot's other end. Further, the
    # count of words would name another learner's variant (their
    # functions and frames lie 8 to 16 bytes apart), so only the side.
    if abs(d) == word:
        return 'one word (%d bytes) %s' % (word, side)
    if f and 0.4 <= g / f <= 0.6:
        return 'about half of what it is'
    if f and 1.7 <= g / f <= 2.3:
        return 'about twice what it is'
    if f and (g / f > 8 or g / f < 1 / 8):
        return 'far %s: another quantity, or another unit' % side
    return side


def why(question):
    """A "why" question (else an observation or a prediction)."""
    return any(k in question for k in ('answer', 'accept', 'require'))


def idea_groups(question):
    """A free-text question's groups of words: one word of each group
    must be in a right answer (require; accept is the older one-group
    form)."""
    return list(question.get('require', [])) + (
        [question['accept']] if 'accept' in question else [])


def reasoned(given, question):
    """A "why" question's answer (labs/N/lab.toml): the letter of the
    right choice (answer), or free text judged on its idea: a word of
    each group of require, and no word of reject (another idea, such as
    a canary where a guard page is meant)."""
    text = ' '.join(given.lower().split())
    if 'answer' in question:
        return text.strip('() .') == str(question['answer']).lower()
    return bool(text) and not rejected(text, question) and all(
        any(word.lower() in text for word in group)
        for group in idea_groups(question))


def rejected(text, question):
    """The words of reject that TEXT names, lower case."""
    text = ' '.join(text.lower().split())
    return [w for w in question.get('reject', []) if w.lower() in text]


def word(text):
    """A prediction's word as lab.toml spells its choices."""
    return '_'.join(text.lower().replace('-', ' ').split())


def check_predictions(n, answers, found):
    """Lines that show the learner's predictions (predict_ keys) beside
    what this run observed, marking those that differ; not scored, so
    no line starts with ok or not ok. A prediction not made shows no
    value: the learner may still make it before the next run."""
    preds = facts.predictions(n)
    if not preds:
        return []
    given = {k: v for k, v in answers if k in preds}
    by_key = {r['key']: r for r in found}
    rows, made, differ = [], 0, 0
    for key, q in preds.items():
        g = given.get(key, '')
        # How close counts as the same, per key: lab.toml's tolerance.
        same = ('the same choice' if q.get('choices') else
                'within %s%%' % q['tolerance'] if q.get('tolerance') else 'exactly')
        if not g:
            rows.append((key, '(not made)', '', same, ''))
            continue
        made += 1
        choices = q.get('choices')
        r = by_key.get(q['observed'])
        if choices and word(g) not in choices:
            note = '<- not one of: %s' % ' '.join(choices)
        elif r is None:
            note = '(not observed: a check before it failed)'
        elif (word(g) == word(r['value']) if choices else
              same_answer(g, r['value'], q.get('tolerance', 0))):
            note = ''
        else:
            note = '<- differs'
        differ += note.startswith('<-')
        rows.append((key, g, r['value'] if r else '', same, note))
    if not made:
        return ['predictions (not scored): none made; lab %d asks %s' % (
            n, ' '.join(preds))]
    width = max(len(k) for k in preds) + 2
    lines = ['predictions (not scored): %d of %d made%s; yours beside what '
             'this run showed' % (made, len(preds), ', %d differ%s'
                                                 % (differ, 's' * (differ == 1))
                                                 if differ else '')]
    lines.append('  %-*s%-18s%-18s%s' % (width, 'prediction', 'yours', 'this run',
                                          'the same if'))
    for key, g, seen, same, note in rows:
        lines.append(('  %-*s%-18s%-18s%-18s%s' % (width, key, g, seen, same, note)).rstrip())
    return lines


def check_answers(n, answers, found, every=False):
    """Result lines for the learner's ANSWERS: observations against this
    run's FOUND (the grader's answer records), "why" questions against
    the lab's facts, then the predictions beside what the run observed
    (check_predictions). EVERY (an answers file was given): each question
    it does not answer is not ok; else a key with no value yet is
    listed, not judged."""
    questions = facts.lab(n)['questions']
    word = facts.machine(facts.lab(n)['stage'])['word_bytes']
    by_key = {r['key']: r for r in found}
    lines = []
    if every:
        given = {k for k, v in answers if v}
        lines += ['not ok - answer %s: not answered (labs/%d/README.md asks it)'
                  % (key, n) for key in questions
                  if not key.startswith('predict_') and key not in given]
    for key, given in answers:
        question = questions.get(key)
        if question is None:
            lines.append('not ok - answer %s: lab %d asks no such question '
                         '(it asks: %s)' % (key, n, ' '.join(questions)))
        elif key.startswith('predict_'):
            continue
        elif not given:
            if not every:
                lines.append('- answer %s: no answer yet' % key)
        elif why(question):
            if reasoned(given, question):
                lines.append('ok - answer %s = %s' % (key, given))
            else:
                other = rejected(given, question)
                lines.append("not ok - answer %s = %s: not the reason%s (the "
                             "chapter's Why section has it)" % (
                                 key, given, '; "%s" is another idea' % other[0]
                                 if other else ''))
        elif key not in by_key:
            lines.append('not ok - answer %s: this run found no value for it '
                         '(a check before it failed)' % key)
        else:
            r = by_key[key]
            if same_answer(given, r['value'], r['tolerance']):
                lines.append('ok - answer %s = %s (this run: %s)' % (key, given, r['value']))
            else:
                # Not the value this run found: a learner who is told it
                # copies it. How far off in kind, and how to measure it.
                far = how_far(given, r['value'], word)
                lines.append('not ok - answer %s = %s: not what this run measured%s%s; '
                             'labs/%d/README.md says how to measure it (make lab N=%d)' % (
                                 key, given, ' (%s)' % far if far else '',
                                 ', within %d%%' % r['tolerance'] if r['tolerance'] else '',
                                 n, n))
    return lines + check_predictions(n, answers, found)
