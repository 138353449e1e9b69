# gdb-scripts' 2.6 names: `break do_IRQ` stops at the C entry of a device
# interrupt (common_interrupt, compared by address) and says which 6.1
# function it stands for; $hardirq_ctx(0) and $softirq_ctx(0) equal CPU 0's
# per-CPU stack pointers read raw (tests/gdb/old_names.py). Stage 0, gdb
# in batch mode.

from tests.checklib import Guest, expect, probe, record

with Guest(0, 'exit', halted=True) as guest:
    run = probe(guest, 'old_names.py', 60)
r = record(run, 'old-names') or {}
said = r.get('said', '').splitlines()
pc, entry = r.get('pc'), r.get('common_interrupt')
expect(pc is not None and pc == entry and r['vector'] >= 32 and
       any(line.startswith('(break do_IRQ stops at common_interrupt.)')
           for line in said),
       'break do_IRQ stops at common_interrupt (%#x, vector %s) and names it'
       % (pc or 0, r.get('vector')),
       'pc %#x, common_interrupt %#x, said %r' % (pc or 0, entry or 0, said[-1:]))
# Stage 0 has both stacks (vm/stages.toml): the raw pointers are set.
for kind in ('hardirq', 'softirq'):
    mine, raw = r.get('%s_ctx0' % kind), r.get('raw_%s0' % kind)
    expect(raw and mine == raw,
           "$%s_ctx(0) is CPU 0's %s_stack_ptr (%#x)" % (kind, kind, raw or 0),
           '$%s_ctx(0) = %s' % (kind, mine if mine is None else '%#x' % mine))
