"""Results handed from one program to another, in two plain forms.

- Records: JSON lines. Code inside gdb (graders, the checks' probes, lab
  4's watchpoint) calls emit(); each record is one JSON object with a
  "kind". The host reads them back with read(). emit() appends to the
  file named by $KS_RESULTS, which vm/session/session.py sets for every gdb it
  runs; with no such file (gdb run by hand) the record is printed.
- Tables: tab-separated values under a header line of column names (the
  experiments' rows, which plots and checks read by name).
- KTAP reports: a grader's records as the kernel's own test format
  (ktap()), which vm/session/grading.py writes beside each run and checks
  against the run's plan (short_of_plan()).
"""
import json
import os


def emit(kind, **fields):
    record = dict(kind=kind, **fields)
    line = json.dumps(record, sort_keys=True)
    path = os.environ.get('KS_RESULTS')
    if path:
        with open(path, 'a') as f:
            f.write(line + '\n')
    else:
        print('ks-result %s' % line)
    return record


def read(path, kind=None):
    """The records in PATH (none if it does not exist), of KIND if given."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    return [r for r in records if kind is None or r.get('kind') == kind]


def write_table(path, columns, rows):
    """ROWS (dicts) as a table with COLUMNS, written whole or not at all."""
    def cell(v):
        text = '' if v is None else str(v)
        if '\t' in text or '\n' in text:
            raise ValueError('a table cell holds a tab or newline: %r' % text)
        return text
    with open(path + '.tmp', 'w') as f:
        f.write('\t'.join(columns) + '\n')
        for row in rows:
            f.write('\t'.join(cell(row.get(c)) for c in columns) + '\n')
    os.replace(path + '.tmp', path)


def write_experiment(base, columns, rows, text, adoc):
    """An experiment's outputs: BASE.tsv (the rows), BASE.txt (TEXT, for
    a terminal, also printed) and BASE.adoc (ADOC, the workbook's table)."""
    write_table(base + '.tsv', columns, rows)
    for ext, content in (('.txt', text), ('.adoc', adoc)):
        with open(base + ext, 'w') as f:
            f.write(content)
    print(text, end='')


def adoc_table(cols, header, rows):
    """A workbook table: COLS (asciidoctor's cols attribute), the HEADER's
    cells, then ROWS, each a list of cells."""
    out = ['[cols="%s",options="header"]' % cols, '|===']
    out += [' '.join('|%s' % cell for cell in row) for row in [header] + rows]
    out.append('|===')
    return '\n'.join(out) + '\n'


def run_experiment(folder, name, columns, runs, text, adoc):
    """An experiment: each of RUNS (a function of the log file that boots
    a guest and returns (guest, row)) in turn, its lines logged to
    FOLDER/NAME.log, then write_experiment's outputs. TEXT(rows, setup)
    and ADOC(rows) make the two tables; setup names the last guest's
    CPUs, memory and accelerator."""
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, name)
    rows = []
    with open(base + '.log', 'w') as log:
        for run in runs:
            guest, row = run(log)
            rows.append(row)
    setup = '%d CPUs, %d MiB, QEMU %s' % (guest.cpus, guest.mem,
                                         guest.accel.upper())
    write_experiment(base, columns, rows, text(rows, setup), adoc(rows))


def read_table(path):
    """The rows of a table written by write_table, as dicts by column."""
    with open(path) as f:
        columns = f.readline().rstrip('\n').split('\t')
        return [dict(zip(columns, line.rstrip('\n').split('\t')))
                for line in f if line.strip()]


if __name__ == '__main__':
    # For shell scripts: python3 vm/session/results.py TABLE COLUMN prints that
    # column's cells, one per row.
    import sys
    for row in read_table(sys.argv[1]):
        print(row[sys.argv[2]])


def indent(text):
    """A value of several lines, its later lines under its first."""
    return str(text).replace('\n', '\n' + ' ' * 16)


def ktap(plan, tests, titles=(), why='the grader stopped before it'):
    """A KTAP report (Documentation/dev-tools/ktap.rst, the kernel's own
    test format): the plan PLAN, then one result line per test record,
    a skipped one with its reason as a SKIP directive. A check of the
    plan (TITLES, in order) that has no record, because the grader or
    its guest ended first, is "not ok", saying WHY. '#' starts a
    directive in KTAP, so a title's own '#' is written 'no.'."""
    def clean(text):
        return text.splitlines()[0].replace('#', 'no.') if text else ''
    lines = ['KTAP version 1', '1..%d' % plan]
    for i, t in enumerate(tests, 1):
        if t['status'] == 'skip':
            lines.append('ok %d %s # SKIP %s' % (i, clean(t['title']), clean(t.get('reason'))))
        else:
            lines.append('%s %d %s' % ('ok' if t['status'] == 'ok' else 'not ok', i,
                                       clean(t['title'])))
    for i, title in enumerate(list(titles)[len(tests):plan], len(tests) + 1):
        lines.append('not ok %d %s # not run: %s' % (i, clean(title), clean(why)))
    return '\n'.join(lines) + '\n'


def short_of_plan(plan, tests):
    """Why a finished run's results do not fit its plan, or None: a plan
    of no checks grades nothing, and a result missing or extra means a
    check was lost or run twice."""
    if plan == 0:
        return 'its plan declares no checks'
    if len(tests) != plan:
        return 'it reported %d results against its plan of %d' % (len(tests), plan)
    return None
