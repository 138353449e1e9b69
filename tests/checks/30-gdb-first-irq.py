# gdb in batch mode attaches to a halted stage-0 guest, stops at the first
# device interrupt (__handle_irq) and reads the IRQ and the vector
# (tests/gdb/first_irq.py). Two independent sources must agree with it:
# - the header: an ISA IRQ arrives on ISA_IRQ_VECTOR(irq), computed here from
#   FIRST_EXTERNAL_VECTOR in the tree's asm/irq_vectors.h;
# - the running kernel's own per-CPU vector_irq[] table, which must map that
#   vector to the very descriptor __handle_irq was given.
import os
import re

from tests.checklib import BUILD, Guest, expect, probe, record

header = os.path.join(BUILD, 'src', 'linux', 'arch', 'x86', 'include', 'asm',
                      'irq_vectors.h')
with open(header) as f:
    first = int(re.search(r'^#define FIRST_EXTERNAL_VECTOR\s+(\S+)', f.read(),
                          re.M).group(1), 0)
isa_base = (first + 16) & ~15            # ISA_IRQ_VECTOR(0)

with Guest(0, 'exit', halted=True) as guest:
    run = probe(guest, 'first_irq.py', 60)
stop = record(run, 'first-irq') or {}
irq, vector = stop.get('irq'), stop.get('vector')

expect(stop.get('function') == '__handle_irq' and
       'Breakpoint 1, __handle_irq ' in run.output,
       'gdb attaches to a halted stage-0 guest and stops in __handle_irq '
       '(IRQ %s, CPU %s)' % (irq, stop.get('cpu')), stop or 'no record')
expect(irq is not None and irq < 16 and vector == isa_base + irq,
       'the vector (%s) is ISA_IRQ_VECTOR(%s) from the headers' % (vector, irq),
       'ISA_IRQ_VECTOR(%s) = %s' % (irq, isa_base + (irq or 0)))
expect(stop.get('desc') and stop['desc'] == stop.get('vector_irq_desc'),
       "this CPU's vector_irq[%s] is the descriptor being handled (%#x)"
       % (vector, stop.get('desc') or 0),
       'vector_irq[%s] = %#x' % (vector, stop.get('vector_irq_desc') or 0))
