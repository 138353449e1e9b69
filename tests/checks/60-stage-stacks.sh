# What each stage does with stacks, seen in the running guest through gdb
# (batch mode), on both CPUs:
#
#   stage    THREAD_SIZE   device interrupt runs on   softirq runs on
#   0, 2     8192          this CPU's hardirq stack   this CPU's softirq stack
#   1        8192          the interrupted task's     the interrupted task's
#   3        4096          this CPU's hardirq stack   this CPU's softirq stack
#
# THREAD_SIZE is read as the kernel uses it: every task's initial stack
# pointer (thread.sp0) lies THREAD_SIZE - TOP_OF_KERNEL_STACK_PADDING above
# its stack. The stack $sp is on is found from raw addresses: the task's
# stack pointer and the per-CPU hardirq/softirq stack pointers. Where a stage
# has IRQ stacks, the esp saved at the bottom word of the IRQ stack must
# point back into the interrupted task's stack. The project's ks- commands
# (gdb-scripts/) must report what these raw facts show; tests/gdb/
# check_commands.py holds the ones beyond ks-where and ks-irqstacks.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

expected_thread_size() { if [ "$1" -ge 3 ]; then echo 4096; else echo 8192; fi; }
has_irq_stacks() { [ "$1" != 1 ]; }

# field LINE NAME: the value of NAME=... in a fact line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# within ADDR BASE SIZE: BASE <= ADDR < BASE + SIZE (hex or decimal).
within() { [ "$2" != none ] && [ $(($1)) -ge $(($2)) ] && [ $(($1)) -lt $(($2 + $3)) ]; }

for k in $(stages); do
	ts=$(expected_thread_size "$k")
	# arch/x86/include/asm/thread_info.h: 16 bytes with CONFIG_VM86, else 8.
	pad=8
	grep -q '^CONFIG_VM86=y' "$(stage_obj "$k")/.config" && pad=16

	vm_start "$k" running /tests/irq-load.sh
	vm_wait_for 'irq-load: [0-9]+ CPUs' || { not_ok "stage $k: the guest runs its workload"; vm_stop; continue; }
	facts=$(gdb_batch "$k" "$TOP/tests/gdb/stage_facts.py" 240 | grep '^fact ' || true)
	vm_stop
	echo "stage $k facts:" >&2
	echo "$facts" >&2

	# THREAD_SIZE from every task but the boot CPU's idle task (pid 0) and
	# tasks that have exited: their stack is already freed (stack=0x0)
	# while they wait on the task list to be reaped.
	sizes=$(echo "$facts" | grep '^fact task ' | grep -v -e ' pid=0 ' -e ' stack=0x0 ' | while read -r line; do
		echo $(( $(field "$line" sp0) - $(field "$line" stack) + pad ))
	done | sort -u | tr '\n' ' ')
	if [ "$sizes" = "$ts " ]; then
		ok "stage $k: every task's stack is THREAD_SIZE = $ts bytes"
	else
		not_ok "stage $k: every task's stack is $ts bytes (saw: ${sizes:-nothing})"
	fi

	cpus=$(echo "$facts" | sed -n 's/^fact cpus=//p')
	[ "${cpus:-0}" -ge 2 ] || not_ok "stage $k: the guest has 2 CPUs (saw ${cpus:-none})"
	for kind in hardirq softirq; do
		cpu=0
		while [ $cpu -lt "${cpus:-0}" ]; do
			line=$(echo "$facts" | grep "^fact $kind cpu=$cpu " || true)
			sp=$(field "$line" sp) task=$(field "$line" task_stack)
			own=$(field "$line" $kind) saved=$(field "$line" saved_esp)
			what="stage $k: a $kind handler on CPU $cpu runs on"
			if [ -z "$sp" ]; then
				not_ok "$what ... (no $kind caught on CPU $cpu: $line)"
			elif has_irq_stacks "$k"; then
				if within "$sp" "$own" "$ts" && within "$saved" "$task" "$ts"; then
					ok "$what this CPU's $kind stack (sp $sp), its saved esp $saved is in the task's stack"
				else
					not_ok "$what this CPU's $kind stack $own (sp $sp, saved esp $saved, task stack $task)"
				fi
			else
				if [ "$own" = none ] && within "$sp" "$task" "$ts"; then
					ok "$what the interrupted task's stack (sp $sp, $(field "$line" comm)), no $kind stack exists"
				else
					not_ok "$what the interrupted task's stack $task (sp $sp, $kind stack $own)"
				fi
			fi
			# gdb-scripts' ks-where must name the same stack, with the
			# same base.
			says=$(echo "$facts" | grep "^fact ks-where $kind cpu=$cpu: " | sed 's/^[^:]*: //' | tr '\n' ' ')
			if has_irq_stacks "$k"; then
				want="CPU $cpu's $kind stack" base=$own
			else
				want="the task stack of pid $(field "$line" pid) " base=$task
			fi
			if [ -n "$sp" ] && echo "$says" | grep -qF "is on $want" \
			   && echo "$says" | grep -q "area $base-"; then
				ok "stage $k: ks-where on CPU $cpu at the $kind handler says: ${want% }"
			else
				not_ok "stage $k: ks-where on CPU $cpu at the $kind handler says '$want' at $base (it said: $says)"
			fi
			# ks-irqstacks, listed at the same stop, must show this
			# CPU on its stack, with the saved esp read raw above.
			rows=$(echo "$facts" | grep "^fact ks-irqstacks $kind cpu=$cpu: " | sed 's/^[^:]*: //')
			if has_irq_stacks "$k"; then
				row="$cpu $kind $own-$(printf '%#x' $((own + ts))) yes $saved "
				what="ks-irqstacks lists CPU $cpu on its $kind stack with saved esp $saved"
			else
				row="This stage has no IRQ stacks"
				what="ks-irqstacks says the stage has no IRQ stacks"
			fi
			if [ -n "$sp" ] && echo "$rows" | tr -s ' ' | grep -qF "$row"; then
				ok "stage $k: $what"
			else
				not_ok "stage $k: $what (wanted '$row' in: $rows)"
			fi
			cpu=$((cpu + 1))
		done
	done
	# The other ks- commands (ks-bt, ks-thread-info, ks-stack-picture,
	# ks-stack-use, ks-watch-switch, $current_thread_info) at the same stops.
	irq=0; has_irq_stacks "$k" && irq=1
	echo "$facts" | python3 "$TOP/tests/gdb/check_commands.py" "$k" "$ts" "$irq" \
		|| not_ok "stage $k: the ks- command checks ran to their end"
done
