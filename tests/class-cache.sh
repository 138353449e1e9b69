# tests/class-cache.sh, sourced by tests/bench.sh (which gives it row,
# now, secs, open_lab, close_lab, $out and $results, and vm/host/lib.sh's
# helpers): class_cache, what a class's shared compile cache saves.
#
# A class as the README's "For teachers" sets it up, on one machine: a
# redis-server on a free port, and two clones of this repository's HEAD
# in folders of different depth, each with a build folder and a local
# ccache of its own, both empty, sharing the server through ccache's own
# CCACHE_REMOTE_STORAGE. The first clone fills the class cache (`make
# kernel` for stages 0-3, cold, and `make lab N=0` after stage 0); the
# second then does the same, served by it. Then the first clone is
# deleted, and the second clone's lab 0 session must still show its own
# sources; its whole `make check` runs (CLASS_CHECK=0 skips it, about 40
# minutes); last, with the server stopped, a rebuild must say so in one
# line and go on. About 30 minutes without the make check.

# is WHAT GOT WANT: a row of the table whose figure must be WANT exactly.
is() {
	verdict=pass
	[ "$2" = "$3" ] || verdict=FAIL
	printf '%-52s %8s %8s %8s %6s  %s\n' "$1" "$2" "$(before "$1")" "$3" - "$verdict" | tee -a "$results"
}

# in_clone CLONE CMD...: CMD in CLONE, as a learner there runs it: none of
# this clone's settings, the class cache set.
in_clone() {
	_ic=$1; shift
	(cd "$_ic" && env -u TOP -u BUILD -u PYTHONPATH -u CCACHE_DIR -u KS_LOCKED \
		-u EXERCISES -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
		CCACHE_REMOTE_STORAGE="redis://127.0.0.1:$class_port" "$@")
}

# timed_kernel CLONE K: `make kernel N=K` in CLONE, in seconds; its
# output in $cl/kernel-NAME-K.log, NAME the clone's folder.
timed_kernel() {
	_log=$cl/kernel-${1##*/}-$2.log
	_t0=$(now)
	in_clone "$1" make -s kernel N="$2" > "$_log" 2>&1 ||
		die "make kernel N=$2 failed in $1: $_log"
	secs "$_t0" "$(now)"
}

class_cache() {
	if ! command -v redis-server > /dev/null; then
		echo "class cache: not measured: redis-server is not installed (sudo apt-get install redis-server)" |
			tee -a "$results"
		return 0
	fi
	cl=$out/class
	rm -rf "$cl"
	mkdir -p "$cl"
	class_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	redis-server --bind 127.0.0.1 --port "$class_port" --save '' --appendonly no \
		--dir "$cl" --logfile "$cl/redis.log" &
	redis_pid=$!
	trap 'kill $redis_pid 2>/dev/null' EXIT
	until redis-cli -p "$class_port" ping 2>/dev/null | grep -q PONG; do
		kill -0 $redis_pid 2>/dev/null || die "redis-server did not start: $cl/redis.log"
		sleep 0.1
	done
	first=$cl/first
	second=$cl/a/deeper/folder/second
	for c in "$first" "$second"; do
		git clone -q "$TOP" "$c"
		# The fetched Debian packages (busybox, crash), not a build.
		mkdir -p "$c/build"
		cp -al "$BUILD/deps" "$c/build/deps"
	done
	echo "class cache: clones of $(git -C "$TOP" rev-parse --short HEAD), redis-server on port $class_port" |
		tee -a "$results"

	for c in first second; do
		eval "dir=\$$c"
		for k in 0 1 2 3; do
			# Stage 2's sources are stage 0's: in one clone, its first
			# build starts from stage 0's objects and relinks.
			budget=$([ $c = second ] || [ $k = 2 ] && echo 60 || echo 330)
			row "$c clone: make kernel N=$k" "$(timed_kernel "$dir" $k)" "$budget"
			[ $k = 0 ] || continue
			t0=$(now)
			lab_top=$dir
			open_lab "$dir/build" 0 AHEAD=0
			close_lab
			lab_top=
			row "$c clone: then make lab N=0 to its stop" "$(secs "$t0" "$(now)")" 30
		done
	done

	# The second clone's objects came from the first's compiles: its
	# debug info must still lead to its own tree.
	rm -rf "$first"
	lab_top=$second
	open_lab "$second/build" 0 AHEAD=0
	printf 'list __handle_irq\ninfo source\n' >&8
	close_lab
	lab_top=
	located=$(sed -n 's/^Located in //p' "$out/lab0.log" | head -n 1)
	cp "$out/lab0.log" "$cl/second-lab0.log"
	[ "$located" = "$(cd "$second" && pwd -P)/build/stage-0/src/arch/x86/kernel/irq_32.c" ] && own=1 || own=0
	is "second clone, first deleted: list __handle_irq in its own tree" "$own" 1
	[ $own = 1 ] || echo "  gdb's source file: ${located:-none} (log: $cl/second-lab0.log)" | tee -a "$results"

	if [ "${CLASS_CHECK:-1}" = 1 ]; then
		t0=$(now)
		rc=0
		in_clone "$second" make check > "$cl/check.log" 2>&1 || rc=$?
		row "second clone: make check ($(tail -n 1 "$cl/check.log"))" "$(secs "$t0" "$(now)")" 5400
		is "  of which: its exit status" "$rc" 0
	fi

	# Server down: the build goes on from the local cache, and says so once.
	kill $redis_pid
	wait $redis_pid 2>/dev/null || true
	trap - EXIT
	# One file changed, and the stamp gone: kernel.sh runs make again.
	touch "$second/build/stage-3/src/kernel/fork.c"
	rm -f "$second/build/.class-cache" "$second/build/stage-3/obj/kernel.stamp"
	t=$(timed_kernel "$second" 3)
	warned=$(grep -c 'class cache .* does not answer' "$cl/kernel-second-3.log" || true)
	row "server stopped: make kernel N=3, one file changed" "$t" 60
	is "  of which: lines saying the class cache is down" "$warned" 1
	rm -rf "$second"
}
