# Lab 4's experiment (labs/4/experiment.sh): the overflow table, made in
# this run, must show what each stage does with a deep call chain and
# interrupts:
#   stage 1: the IRQ-entry check fires and reports on the task stack, and
#            that report itself runs off the end (the magic is overwritten
#            inside the interrupt); the scheduler's check panics;
#   stage 2: the check fires, reports on the IRQ stack; the stack survives;
#   stage 3: the same chain runs past the end of the 4K stack: the magic is
#            overwritten by the recursion itself; the scheduler's check panics;
#   any stage, ~300 bytes left: an interrupt overwrites the magic.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

"$TOP/labs/4/experiment.sh" >&2 || { not_ok "labs/4/experiment.sh ran to its end"; exit 0; }
table=$BUILD/results/lab4-overflow.txt
cat "$BUILD/results/lab4-overflow.log" >&2

# row STAGE DESCENT: the table's lines for that run, joined.
row() { awk -v h="stage $1, $2:" 'index($0, h) == 1 { on = 1; print; next } /^stage / { on = 0 } on' "$table" | tr '\n' ' '; }
has() { echo "$1" | grep -qF -- "$2"; }

r=$(row 1 "frames 25")
if has "$r" "(report on the task stack)" && ! has "$r" "fired 0 times" \
   && has "$r" "end magic OVERWRITTEN, overwritten in" && has "$r" "interrupt)" \
   && has "$r" "panic: corrupted stack end detected inside scheduler"; then
	ok "stage 1, 25 frames: the IRQ-entry check fires on the task stack, its report overflows it, the scheduler panics"
else
	not_ok "stage 1, 25 frames: check on the task stack, overflow in the interrupt, scheduler panic (table: $r)"
fi
r=$(row 2 "frames 25")
if has "$r" "(report on the irq stack)" && ! has "$r" "fired 0 times" \
   && has "$r" "end magic intact" && has "$r" "panic: none; dd returned to user: yes"; then
	ok "stage 2, 25 frames: the check fires, reports on the IRQ stack, and the task survives"
else
	not_ok "stage 2, 25 frames: check on the IRQ stack, the task survives (table: $r)"
fi
r=$(row 3 "frames 25")
if has "$r" "bytes PAST end" || has "$r" "PAST end"; then past=yes; else past=no; fi
if [ $past = yes ] && has "$r" "overwritten in descend" \
   && has "$r" "panic: corrupted stack end detected inside scheduler"; then
	ok "stage 3, 25 frames: the chain runs past the 4K end, the recursion overwrites the magic, the scheduler panics"
else
	not_ok "stage 3, 25 frames: past the end, magic overwritten by descend, scheduler panic (table: $r)"
fi
for k in 1 2 3; do
	r=$(row $k "room 300")
	if has "$r" "end magic OVERWRITTEN, overwritten in" && has "$r" "interrupt)"; then
		ok "stage $k, ~300 bytes left: an interrupt handler overwrites the end magic"
	else
		not_ok "stage $k, ~300 bytes left: an interrupt overwrites the end magic (table: $r)"
	fi
done
