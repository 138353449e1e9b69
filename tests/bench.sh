#!/bin/sh
# tests/bench.sh: measure the lab machine's time budgets (make bench).
#
#   cold make lab N=0 to the lab's stop   <= 240 s  (empty build cache)
#   warm make lab N=0 to the lab's stop   <=   5 s
#   warm make lab N=3 to the lab's stop   <=   5 s
#   warm make grade N=k, each             <=  30 s
#   boot to the ready marker under TCG     <=   2 s
#   warm make check                        <=  60 s  (with stage 0 only;
#                                                     measured with all stages)
#
# The cold run uses a build cache of its own (build/bench/cold), so the
# learner's cache is left alone; COLD=0 skips it. Results go to stdout and
# build/bench/results.txt.
. "$(dirname "$0")/../vm/lib.sh"
. "$TOP/vm/run.sh"

out=$BUILD/bench
mkdir -p "$out"
now() { date +%s.%N; }
secs() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }
row() { printf '%-44s %10s s   (budget %s)\n' "$1" "$2" "$3" | tee -a "$out/results.txt"; }

# lab_to_stop BUILD [N]: seconds from `make lab N=N` (default 0) to gdb
# stopped at the lab's first stop; gdb is then told to quit.
lab_to_stop() {
	log=$out/lab.log
	rm -f "$out/stdin"
	: > "$log"       # exists before make's redirection opens it
	mkfifo "$out/stdin"
	t0=$(now)
	make -s -C "$TOP" lab N="${2:-0}" BUILD="$1" < "$out/stdin" > "$log" 2>&1 &
	pid=$!
	exec 8> "$out/stdin"
	until grep -q "==== Lab ${2:-0}" "$log"; do
		kill -0 $pid 2>/dev/null || { cat "$log" >&2; die "make lab failed"; }
		sleep 0.05
	done
	t1=$(now)
	echo quit >&8
	exec 8>&-
	wait $pid || true
	rm -f "$out/stdin"
	secs "$t0" "$t1"
}

: > "$out/results.txt"
echo "bench on $(date -u +%F), $(nproc) cores, $(qemu-system-i386 --version | head -n 1)" | tee -a "$out/results.txt"

if [ "${COLD:-1}" = 1 ]; then
	rm -rf "$out/cold"
	row "cold make lab N=0 (empty cache) to stop" "$(lab_to_stop "$out/cold")" "240 s"
	rm -rf "$out/cold"
fi

make -s -C "$TOP" kernel initramfs N=0 >&2
row "warm make lab N=0 to stop" "$(lab_to_stop "$BUILD")" "5 s"
make -s -C "$TOP" kernel N=3 >&2
row "warm make lab N=3 to stop" "$(lab_to_stop "$BUILD" 3)" "5 s"
for n in $(ls "$TOP/labs" | grep -x '[0-9]*'); do
	[ -f "$TOP/labs/$n/grade.py" ] || [ -f "$TOP/labs/$n/grade.sh" ] || continue
	t0=$(now)
	make -s -C "$TOP" grade N="$n" > "$out/grade$n.log" 2>&1 || echo "make grade N=$n failed: $out/grade$n.log" >&2
	row "warm make grade N=$n ($(tail -n 1 "$out/grade$n.log" | cut -d'(' -f1))" "$(secs "$t0" "$(now)")" "30 s"
done

best=
for i in 1 2 3 4 5; do
	t0=$(now)
	vm_start 0 running exit
	vm_wait_for "$READY_MARKER"
	t=$(secs "$t0" "$(now)")
	vm_wait_exit
	[ -n "$best" ] && [ "$(echo "$t > $best" | bc)" = 1 ] || best=$t
	all="${all:-}$t "
done
row "boot to ready marker (best of 5: $all)" "$best" "2 s"

t0=$(now)
make -s -C "$TOP" check > "$out/check.log" 2>&1 || echo "make check failed: $out/check.log" >&2
row "warm make check, stages $(stages | tr '\n' ' ')($(tail -n 1 "$out/check.log"))" \
	"$(secs "$t0" "$(now)")" "60 s, stage 0 alone"
