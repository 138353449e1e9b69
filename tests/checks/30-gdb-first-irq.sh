# gdb in batch mode attaches to a halted stage-0 guest, stops at the first
# device interrupt (__handle_irq) and reads the IRQ and the vector. Two
# independent sources must agree with it:
# - the header: an ISA IRQ arrives on ISA_IRQ_VECTOR(irq), computed here from
#   FIRST_EXTERNAL_VECTOR in the tree's asm/irq_vectors.h;
# - the running kernel's own per-CPU vector_irq[] table, which must map that
#   vector to the very descriptor __handle_irq was given.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

first=$(sed -n 's/^#define FIRST_EXTERNAL_VECTOR[[:space:]]*//p' \
	"$PRISTINE/arch/x86/include/asm/irq_vectors.h")
isa_base=$(( (first + 16) & ~15 ))

vm_start 0 halted exit
out=$(gdb_batch 0 "$TOP/tests/gdb/first-irq.gdb")
echo "$out" >&2
get() { echo "$out" | sed -n "s/^$1=//p"; }
irq=$(get irq) vector=$(get vector) desc=$(get desc) table=$(get vector_irq_desc)

if [ -n "$irq" ] && echo "$out" | grep -q 'Breakpoint 1, __handle_irq '; then
	ok "gdb attaches to a halted stage-0 guest and stops in __handle_irq (IRQ $irq, CPU $(get cpu))"
else
	not_ok "gdb attaches to a halted stage-0 guest and stops in __handle_irq"
fi
if [ -n "$irq" ] && [ "$irq" -lt 16 ] && [ "$vector" = $((isa_base + irq)) ]; then
	ok "the vector ($vector) is ISA_IRQ_VECTOR($irq) from the headers"
else
	not_ok "the vector ($vector) is ISA_IRQ_VECTOR($irq) = $((isa_base + ${irq:-0})) from the headers"
fi
if [ -n "$desc" ] && [ "$desc" = "$table" ]; then
	ok "this CPU's vector_irq[$vector] is the descriptor being handled ($desc)"
else
	not_ok "this CPU's vector_irq[$vector] ($table) is the descriptor being handled ($desc)"
fi
