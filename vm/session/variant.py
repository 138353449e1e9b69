"""vm/session/variant.py: a learner's variant of the numbers a lab asks.

An answer measured in the book, or by a classmate, must not stand in for
one's own run. So each lab names, in its lab.toml's [variant] table,
what may differ from learner to learner without a rebuild: where a cost
is measured, how big the lab module's frames are, how much memory a
question is about. Each entry:

    [variant.KEY]
    book = VALUE          the workbook's runs use it; no learner gets it
    choices = [...]       a learner's value is one of these
    says = "... {} ..."   the line `make lab`'s banner prints for it
    append = "ks_x={}"    optional: words for the guest kernel's command
                          line (the guest script or a module reads them)

A learner's value is picked by a hash of their id, the lab and the key:
the same on every run and every machine, and two learners mostly differ.
The id is LEARNER=id, else the checkout's own, made at random once and
kept in the build folder (build/learner). LEARNER=book is the book's
variant: make check runs with it, so that its runs are the book's.
"""
import hashlib
import os
import re
import secrets

BOOK = 'book'
TOP = os.environ.get('TOP') or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
KEPT = os.path.join(TOP, os.environ.get('BUILD') or 'build', 'learner')
VALID = re.compile(r'[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$')


class BadLearner(Exception):
    """A LEARNER= that cannot be an id; the message says what can."""


def learner():
    """This run's learner id: LEARNER=, else the checkout's (made once)."""
    given = os.environ.get('LEARNER', '')
    if given:
        if not VALID.match(given):
            raise BadLearner("LEARNER='%s' is not an id: use up to 64 letters, digits, "
                             "'.', '_', '@' or '-', starting with a letter or digit "
                             "(e.g. LEARNER=ada.lovelace)" % given)
        return given
    try:
        with open(KEPT) as f:
            kept = f.read().strip()
    except OSError:
        kept = None
    if kept is not None:
        if not VALID.match(kept):
            raise BadLearner("%s holds no learner id (%r): give yours as LEARNER=id, "
                             "or delete the file for a new one" % (KEPT, kept[:40]))
        return kept
    # Made once: two runs that start at once keep the first one's (a link
    # fails where the name is taken).
    os.makedirs(os.path.dirname(KEPT), exist_ok=True)
    mine = 'learner-' + secrets.token_hex(4)
    tmp = '%s.%d.tmp' % (KEPT, os.getpid())
    with open(tmp, 'w') as f:
        f.write(mine + '\n')
    try:
        os.link(tmp, KEPT)
    except FileExistsError:
        return learner()
    finally:
        os.unlink(tmp)
    return mine


def pick(n, key, entry, who):
    """Learner WHO's value of lab N's variant KEY (its lab.toml ENTRY)."""
    if who == BOOK:
        return entry['book']
    digest = hashlib.sha256(('%s\0lab %d\0%s' % (who, n, key)).encode()).digest()
    return entry['choices'][int.from_bytes(digest[:8], 'big') % len(entry['choices'])]


def of(n, table, who=None):
    """{KEY: value} of lab N's variant TABLE (lab.toml's [variant]) for
    learner WHO (default: this run's)."""
    if not table:
        return {}
    who = who or learner()
    return {key: pick(n, key, entry, who) for key, entry in table.items()}


def append_words(table, values):
    """The kernel command line words the variant VALUES add."""
    return ' '.join(entry['append'].format(values[key])
                    for key, entry in table.items() if 'append' in entry)


def says(table, values):
    """The banner's lines: what this learner's variant asks, key by key."""
    return [entry['says'].format(values[key]) for key, entry in table.items()]
