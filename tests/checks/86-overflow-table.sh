# Lab 4's experiment (labs/4/experiment.sh): the overflow table, made in
# this run, must show what each stage does with a deep call chain and
# interrupts:
#   stage 1: the IRQ-entry check fires and reports on the task stack, and
#            code on top of the descent (the report) overwrites the end
#            magic; dd never returns (a panic, or a silent death);
#   stage 2: the check fires and reports on the IRQ stack; the task
#            survives;
#   stage 3: the same chain runs past the end of the 4K stack: the magic is
#            overwritten by the recursion itself; dd never returns;
#   ~300 bytes left: the descent stays above the end at every stage, and
#            at some stage an interrupt overwrites the magic anyway.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

"$TOP/labs/4/experiment.sh" >&2 || { not_ok "labs/4/experiment.sh ran to its end"; exit 0; }
table=$BUILD/results/lab4-overflow.txt
cat "$BUILD/results/lab4-overflow.log" >&2

# row STAGE DESCENT: the table's lines for that run, joined.
row() { awk -v h="stage $1, $2:" 'index($0, h) == 1 { on = 1; print; next } /^stage / { on = 0 } on' "$table" | tr '\n' ' '; }
has() { echo "$1" | grep -qF -- "$2"; }

# What happens after an overflow depends on what lies under the stack and
# on when interrupts come; what must hold is asserted, the rest is in the
# table.
r=$(row 1 "frames 25")
if has "$r" "(report on the task stack)" && ! has "$r" "fired 0 times" \
   && has "$r" "overwritten in" && ! has "$r" "overwritten in descend" \
   && has "$r" "dd returned to user: no"; then
	ok "stage 1, 25 frames: the IRQ-entry check fires on the task stack, code on top of the descent overwrites the end magic, dd never returns"
else
	not_ok "stage 1, 25 frames: check on the task stack, magic overwritten on top of the descent, dd never returns (table: $r)"
fi
# stackdeep waits at the bottom until a device interrupt has arrived, so
# stage 2's check fires too.
r=$(row 2 "frames 25")
if has "$r" "(report on the irq stack)" && ! has "$r" "fired 0 times" \
   && has "$r" "end magic intact" && has "$r" "panic: none; dd returned to user: yes"; then
	ok "stage 2, 25 frames: the IRQ-entry check fires and reports on the IRQ stack; the task survives"
else
	not_ok "stage 2, 25 frames: the check reports on the IRQ stack, the task survives (table: $r)"
fi
r=$(row 3 "frames 25")
if has "$r" "overwritten in descend" && has "$r" "dd returned to user: no"; then
	ok "stage 3, 25 frames: the recursion itself runs past the 4K end (the watchpoint stops in descend), dd never returns"
else
	not_ok "stage 3, 25 frames: magic overwritten by descend, dd never returns (table: $r)"
fi
# ~300 bytes left: the descent stops above the end at every stage; at
# least one stage shows an interrupt overwriting the magic even so (the
# timer ticks 25 times during the wait, but need not land deep enough).
over=
for k in 1 2 3; do
	r=$(row $k "room 300")
	# The watchpoint stops at the first write to the magic: if that was
	# not in descend, the descent had not reached the end either.
	if has "$r" "left above end" || { has "$r" "overwritten in" && ! has "$r" "overwritten in descend"; }; then
		ok "stage $k, ~300 bytes left: the descent itself stays above the end"
	else
		not_ok "stage $k, ~300 bytes left: the descent itself stays above the end (table: $r)"
	fi
	has "$r" "end magic OVERWRITTEN, overwritten in" && ! has "$r" "overwritten in descend" && over="$over $k"
done
if [ -n "$over" ]; then
	ok "~300 bytes left: an interrupt overwrote the end magic anyway (stages:$over)"
else
	not_ok "~300 bytes left: an interrupt overwrote the end magic at some stage (none did)"
fi
