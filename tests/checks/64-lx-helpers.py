# The kernel's own gdb helpers work in every stage, as a kernel developer
# expects: every lx- command and $lx_ function 6.1 defines is run at a
# stop with a module loaded (tests/gdb/lx_helpers.py), and the failures
# are counted. A helper for hardware a PC lacks (device tree, common
# clock, power domains) counts as absent only when the kernel's own
# config says so. $lx_current() and lx-timerlist's walk are the
# project's (gdb-scripts/kstack/lxfixes.py): 6.1's fail on i386.

from tests.checklib import Guest, expect, not_ok, probe, record, records, stages

for k in stages():
    with Guest(k, '/tests/lx.sh', halted=True) as guest:
        run = probe(guest, 'lx_helpers.py')
    found = record(run, 'lx-found')
    helpers = records(run, 'lx')
    if not found:
        not_ok('stage %d: the lx- helpers were run (no list; log: %s)'
               % (k, guest.path('gdb-1.log')))
        continue
    failed = ['%s: %s' % (h['name'], h['why']) for h in helpers
              if h['status'] == 'failed']
    good = sum(h['status'] == 'ok' for h in helpers)
    absent = ' '.join('%s (%s)' % (h['name'], h['needs']) for h in helpers
                      if h['status'] == 'absent')
    # Every helper gdb listed has its outcome, and none failed.
    expect(not failed and len(helpers) == found['commands'] + found['functions'],
           'stage %d: %d commands, %d functions: %d work, 0 fail; absent on '
           'a PC: %s' % (k, found['commands'], found['functions'], good, absent),
           '%d outcomes, %d fail: %s' % (len(helpers), len(failed),
                                         '; '.join(failed)))
