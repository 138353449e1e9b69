# tests/config-cost.sh, sourced by tests/bench.sh (which gives it row,
# now, secs, $out and $results, and vm/host/lib.sh's helpers): config_cost,
# what vm/host/kernel.config costs to build against
# tests/config-baseline.config, the config before it was cut.
#
# Both are cold builds of stage 0's tree, of what vm/host/kernel.sh builds
# (bzImage scripts_gdb modules_prepare), without ccache. They run at the
# same time, each alone on one core (taskset, make -j1): this machine's
# speed changes from one minute to the next (other guests on its host;
# the same 40 compiles took from 17 s to 27 s within a quarter of an
# hour), and two builds that run together see the same machine. When one
# ends, a busy loop takes its core until the other ends, so the other
# never has the machine to itself. About 12 minutes.
#
# Every compile of an object goes through a wrapper that logs how long it
# took, so the objects each option brings in (OPTION_FILES) give the
# option's share of each build.

# option|objects: an extended regex on an object's path in the build
# folder. The first line that matches an object claims it.
OPTION_FILES='FTRACE, FUNCTION_TRACER, STACK_TRACER|^kernel/trace/|ftrace|^arch/x86/kernel/(trace|tracepoint|uprobes)\.o|^kernel/tracepoint\.o|^fs/tracefs/|^drivers/base/trace\.o|^kernel/events/uprobes\.o|^lib/glob\.o
VT (and the input layer, HID, vgacon)|^drivers/(tty/vt|input|hid|video)/
RD_GZIP ... RD_ZSTD (initramfs decompressors)|^lib/(decompress_|zlib_inflate/|xz/|zstd/|lz4/|lzo/|xxhash)
CPU_FREQ, X86_INTEL_PSTATE, SCHED_MC_PRIO|^drivers/cpufreq/|/itmt\.o
LKDTM|^drivers/misc/lkdtm/
CPU_SUP_AMD and 7 other CPU vendors|/cpu/(amd|hygon|centaur|zhaoxin|cyrix|transmeta|umc|vortex)\.o|^arch/x86/events/(amd/(core|lbr)|zhaoxin/)
UNIX98_PTYS, LEGACY_PTYS|^drivers/tty/pty\.o|^fs/devpts/
PROC_PAGE_MONITOR (page.c; not its parts of task_mmu.c)|^fs/proc/page\.o
PERF_EVENTS (X86 selects it)|^(kernel|arch/x86)/events/
MODULES|^kernel/module/|^arch/x86/kernel/module\.o
SERIAL_8250 (the console)|^drivers/tty/serial/
DEBUG_FS|^fs/debugfs/|kdebugfs\.o|timekeeping_debug\.o
HIGH_RES_TIMERS|^kernel/time/tick-(sched|oneshot|broadcast-hrtimer)\.o
KALLSYMS|^kernel/kallsyms\.o
MAGIC_SYSRQ|^drivers/tty/sysrq\.o
IKCONFIG|^kernel/configs\.o'

# kernel_config and kernel_make.
. "$TOP/vm/host/kmake.sh"

config_cost() {
	cc=$out/config-cost
	set -- $(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
	[ $# = 2 ] || die "the config's cost needs two cores (CONFIG_COST=0 skips it)"
	cores="$1 $2"
	# The estimate is this machine's last run, if there was one.
	last=$(cat "$cc/before.seconds" 2>/dev/null || true)
	if [ -n "$last" ]; then took="the last run took ${last%.*} s here"; else took="about 12 minutes"; fi
	rm -rf "$cc"
	mkdir -p "$cc"
	cat > "$cc/gcc" <<'WRAPPER'
#!/bin/sh
# gcc, logging "MILLISECONDS OBJECT" to $CC_LOG for each object compiled
# (not for the compiler probes, whose output goes to .tmp_* or nowhere).
t0=$(date +%s%N)
gcc "$@"; rc=$?
t1=$(date +%s%N)
o= prev=
for a; do [ "$prev" != -o ] || o=$a; prev=$a; done
case $o in *.tmp_*) ;; *.o) echo "$(( (t1 - t0) / 1000000 )) $o" >> "$CC_LOG" ;; esac
exit $rc
WRAPPER
	chmod +x "$cc/gcc"
	cp "$TOP/tests/config-baseline.config" "$cc/before.config"
	cp "$TOP/vm/host/kernel.config" "$cc/today.config"
	for c in before today; do
		kernel_config "$PRISTINE" "$cc/$c" "$cc/$c.config" > "$cc/$c-config.log" 2>&1 ||
			die "configuring the $c config failed: $cc/$c-config.log"
		missing=$(config_missing "$cc/$c/.config" "$cc/$c.config")
		[ -z "$missing" ] || die "Kconfig dropped options of the $c config:$missing"
	done
	say "two cold builds of stage 0 at once, one per core ($took; logs in $cc)"
	set -- $cores
	for c in before today; do
		# Each in its own process group, so that an interrupt stops it all.
		CC_LOG=$cc/$c.times setsid -w taskset -c "$1" sh -c '. "$TOP/vm/host/lib.sh"; . "$TOP/vm/host/kmake.sh"
			t0=$(date +%s.%N)
			! kernel_make "$PRISTINE" "$1" CC="$2" -j1 bzImage scripts_gdb modules_prepare ||
				echo "$(date +%s.%N) - $t0" | bc > "$1.seconds"
			touch "$1.done"' \
			build "$cc/$c" "$cc/gcc" > "$cc/$c-build.log" 2>&1 &
		eval "pid_$c=$! core_$c=$1"
		shift
	done
	spin=
	trap 'kill -- -$pid_before -$pid_today $spin 2>/dev/null; exit 130' INT TERM HUP
	while [ ! -e "$cc/before.done" ] && [ ! -e "$cc/today.done" ]; do
		sleep 1
	done
	if [ -e "$cc/today.done" ]; then free=$core_today; else free=$core_before; fi
	taskset -c "$free" sh -c 'while :; do :; done' &
	spin=$!
	wait "$pid_before" "$pid_today" || true
	kill "$spin"
	trap - INT TERM HUP
	for c in before today; do
		[ -s "$cc/$c.seconds" ] || die "the $c build failed: $cc/$c-build.log"
		[ -s "$cc/$c.times" ] || die "no compile of the $c build went through $cc/gcc"
	done
	before=$(cat "$cc/before.seconds") today=$(cat "$cc/today.seconds")
	row "stage 0 cold build, today's config / the one before" \
		"$(printf '%.2f' "$(echo "$today / $before" | bc -l)")" 0.75 x
	printf '  %.0f s and %.0f s, side by side on one core each\n' "$today" "$before" | tee -a "$results"
	option_table "$cc" "$today" "$before" | tee -a "$results"
}

# option_table DIR TODAY_S BEFORE_S: the seconds each build spent
# compiling each option's objects (a -j1 build does one thing at a time,
# so these add up to the build's time).
option_table() {
	printf '%s\n' "$OPTION_FILES" | awk -v today="$1/today.times" -v before="$1/before.times" \
		-v ts="$2" -v bs="$3" '
	BEGIN { FS = "|" }
	{ name[NR] = $1; re = $2; for (i = 3; i <= NF; i++) re = re "|" $i; pat[NR] = re; n = NR }
	END {
		name[n + 1] = "the other objects (tinyconfig, SMP, PROC_FS, ...)"
		load(today, t); load(before, b)
		t[n + 2] = ts * 1000 - t["all"]; b[n + 2] = bs * 1000 - b["all"]
		name[n + 2] = "the rest: what Kbuild runs around each compile, links"
		t[n + 3] = ts * 1000; b[n + 3] = bs * 1000
		name[n + 3] = "the whole build"
		printf "  %-56s %7s %7s\n", "option: compiling its objects took", "today", "before"
		for (i = 1; i <= n + 3; i++)
			printf "  %-56s %7s %7s\n", name[i], cell(t[i]), cell(b[i])
	}
	# load FILE ARR: ARR[k], the milliseconds of option k (n + 1: of no
	# option); ARR["all"], of every compile.
	function load(file, arr,    line, f, o, i) {
		while ((getline line < file) > 0) {
			split(line, f, " "); o = f[2]
			arr["all"] += f[1]
			for (i = 1; i <= n && o !~ pat[i]; i++);
			arr[i] += f[1]
		}
		close(file)
	}
	function cell(ms) { return ms > 0 ? sprintf("%.0f s", ms / 1000) : "-" }
	'
}
