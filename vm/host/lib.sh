# Shared helpers for the vm/ scripts: sourced, never run.
# Every script gets the same idea of where things live, so a learner who
# sets BUILD= once sees one consistent build cache.

set -eu

# Scripts live below the top (vm/, labs/N/, tests/checks/): the top is the
# nearest folder up from the script that holds vm/host/lib.sh. make exports TOP
# for the one-liners it runs with sh -c.
top_of() {
	d=$(cd "$(dirname "$1")" && pwd)
	while [ ! -f "$d/vm/host/lib.sh" ] && [ "$d" != / ]; do d=$(dirname "$d"); done
	echo "$d"
}
TOP=${TOP:-$(top_of "$0")}
BUILD=${BUILD:-$TOP/build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
export TOP BUILD
# The project's Python is one tree of packages rooted at the top
# (vm.session, labs, tests, book): a program of it runs as a module, from
# there, so that its imports need nothing from the environment.
py() { (cd "$TOP" && exec python3 -m "$@"); }
TARBALL=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PRISTINE=$BUILD/src/linux          # the tarball, extracted once, never patched
# tree_version: which 6.1 the stages are built from: the extracted tree's
# own version, and the Debian package that installed the tarball.
tree_version() {
	case $TARBALL in
	/usr/src/*) from="linux-source-6.1 $(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null ||
		echo 'not installed')" ;;
	*) from=$TARBALL ;;		# make check-release's
	esac
	printf 'Linux 6.1.%s (%s)\n' "$(sed -n 's/^SUBLEVEL = //p' "$PRISTINE/Makefile" 2>/dev/null ||
		echo '?')" "$from"
}
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

# A script another sources in a subshell (kernel.sh, modules.sh) names
# itself in $me: $0 is its caller's.
die() { printf '%s: error: %s\n' "${me:-${0##*/}}" "$*" >&2; exit 1; }
say() { printf '[%s] %s\n' "${me:-${0##*/}}" "$*" >&2; }

# Stages: 0 is the pristine tree; stage k applies patches/1 .. patches/k in
# order, so the list is 0 plus every numbered folder under patches/ that
# holds patches.
stages() {
	echo 0
	for d in "$TOP"/patches/[0-9]*/; do
		[ -d "$d" ] || continue
		ls "$d" | grep -q '\.patch$' || continue
		basename "$d"
	done | sort -n
}

# valid_stage K: succeeds when K names a known stage.
valid_stage() {
	case ${1:-} in ''|*[!0-9]*) return 1 ;; esac
	stages | grep -qx "$1"
}

# The patches that make stage K, in the order they apply.
stage_patches() {
	i=1
	while [ "$i" -le "$1" ]; do
		ls "$TOP/patches/$i/"*.patch 2>/dev/null || true
		i=$((i + 1))
	done
}

# The files stage K's patches write, one a line.
patched_files() { stage_patches "$1" | xargs -r sed -n 's|^+++ b/\([^	]*\).*|\1|p' | sort -u; }

# Where a kernel's tree and objects live. A stage is a number; "eN" is lab
# N's exercise, the learner's own tree (make exercise N=N), under
# EXERCISES. Every folder keeps its tree in src/ and its objects in obj/,
# stage 0 too: the compiler then sees the same relative paths in all of
# them, and one kernel's objects can start another's build
# (vm/host/seed-obj.sh).
EXERCISES=${EXERCISES:-$BUILD/exercises}
stage_dir() { case $1 in e*) echo "$EXERCISES/${1#e}" ;; *) echo "$BUILD/stage-$1" ;; esac; }
stage_src() { echo "$(stage_dir "$(tree_of "$1")")/src"; }
stage_obj() { echo "$(stage_dir "$1")/obj"; }
# The kernel's LOCALVERSION, which uname -r and module vermagic carry.
localversion() { case $1 in e*) echo "-exercise${1#e}" ;; [0-9]*) echo "-stage$1" ;; *) echo "-$1" ;; esac; }

# A kernel beside the series (vm/stages.toml's [kernels.NAME], lab 7's) is
# one row: its machine, the stage whose tree it is built from, its config
# fragments. kfact K FIELD: a field of kernel K's row (a stage's: its own
# number for tree, i386 for machine); mfact K FIELD: of its machine's
# record. A stage or an exercise asks no Python.
kfact() { py vm.session.facts kernel "$@"; }
mfact() { py vm.session.facts machine "$@"; }
tree_of() { case $1 in [0-9]*|e*) echo "$1" ;; *) kfact "$1" tree ;; esac; }
# This host's compilers' prefix for MACHINE's kernels and programs, and its
# gdb (vm/hosts.toml): from make's environment (CROSS_i386, HOST_GDB:
# build/make.mk), else asked.
cross_of() { eval "_c=\${CROSS_$1-unset}"; [ "$_c" != unset ] && echo "$_c" || py vm.session.facts toolchain "$1" cross; }
host_gdb() { echo "${HOST_GDB:-$(py vm.session.facts host gdb)}"; }
karch() { case $1 in [0-9]*|e*) echo i386 ;; *) kfact "$1" machine ;; esac; }

# A short fingerprint of the tarball: its Debian version, size and mtime.
# Hashing 138 MB on every run would cost a second; a new linux-source
# package changes all three anyway.
tarball_key() {
	[ -r "$TARBALL" ] || die "$TARBALL is missing: run 'make deps' (package linux-source-6.1)"
	stat -c '%s %Y' "$TARBALL"
}

# Fingerprint of everything stage K's source tree is made from.
tree_key() {
	{ tarball_key; for p in $(stage_patches "$1"); do sha256sum < "$p"; done; } | sha256sum | cut -c1-16
}

# Elapsed-time progress for long steps: "run_logged LOG what cmd..." shows a
# ticking line on a terminal and, on failure, the tail of the log and its path.
run_logged() {
	# Its own names: a caller's $what or $log must survive the call.
	_rl_log=$1 _rl_what=$2; shift 2
	_rl_start=$(date +%s)
	"$@" > "$_rl_log" 2>&1 &
	_rl_pid=$!
	trap 'kill $_rl_pid 2>/dev/null; exit 130' INT TERM HUP
	while kill -0 $_rl_pid 2>/dev/null; do
		if [ -t 2 ]; then
			printf '\r[%s] %s ... %ss ' "${0##*/}" "$_rl_what" $(( $(date +%s) - _rl_start )) >&2
		fi
		sleep 1
	done
	_rl_rc=0; wait $_rl_pid || _rl_rc=$?
	trap - INT TERM HUP
	[ -t 2 ] && printf '\r' >&2
	if [ $_rl_rc -ne 0 ]; then
		say "$_rl_what FAILED after $(( $(date +%s) - _rl_start ))s; last lines of $_rl_log:"
		tail -n 25 "$_rl_log" >&2
		# The first error is the one to read (a compiler's, or make's).
		_rl_first=$(grep -m 1 -E '(error|Error)[: ]' "$_rl_log" || true)
		die "$_rl_what failed${_rl_first:+: $_rl_first} (full log: $_rl_log)"
	fi
	say "$_rl_what done in $(( $(date +%s) - _rl_start ))s"
}

# build_lock: one kernel build at a time per build folder (two `make lab`
# in one clone may start together). The second waits for the first, then
# finds its work done. Children inherit the lock through KS_LOCKED.
# Callers check their stamp first: what is already built never waits.
build_lock() {
	[ -z "${KS_LOCKED:-}" ] || return 0
	mkdir -p "$BUILD"
	exec 9> "$BUILD/.build.lock"
	flock -n 9 || _wait_for_build
	export KS_LOCKED=1
}

# _wait_for_build: another process builds (a build ahead, say): wait for
# its lock, showing what it builds and how far it got (files compiled),
# on one ticking line on a terminal, or a line every 30 s otherwise.
_wait_for_build() {
	what=$(cut -d'|' -f1 "$BUILD/.build.what" 2>/dev/null || echo 'a build')
	log=$(cut -d'|' -f2 "$BUILD/.build.what" 2>/dev/null || true)
	say "waiting for $what, which another process is building (log: ${log:-?})"
	start=$(date +%s)
	until flock -w 1 9; do
		t=$(( $(date +%s) - start ))
		done_files=$(grep -c '^ *CC ' "$log" 2>/dev/null || echo 0)
		if [ -t 2 ]; then
			printf '\r[%s] waiting for %s: %s files compiled ... %ss ' "${0##*/}" "$what" "$done_files" "$t" >&2
		elif [ $((t % 30)) = 29 ]; then
			say "still waiting for $what: $done_files files compiled, ${t}s"
		fi
	done
	[ -t 2 ] && printf '\n' >&2
	say "$what is done; waited $(( $(date +%s) - start ))s"
}

# class_cache_check: leave out of ccache's CCACHE_REMOTE_STORAGE (a
# class's shared cache) what does not answer, with one line on stderr
# saying so: the build goes on from the local cache, where ccache would
# only log the failure and try the server again on every compile. Once
# per script, and asked once a minute per build folder: the scripts of
# one `make` (kernel, modules, a build ahead) share the answer, and only
# the first says it.
class_cache_check() {
	[ -n "${CCACHE_REMOTE_STORAGE:-}" ] && [ -z "${_cc_checked:-}" ] || return 0
	_cc_checked=1
	_cc_seen=$BUILD/.class-cache
	_cc_key=$(printf '%s' "$CCACHE_REMOTE_STORAGE" | sha256sum | cut -c1-16)
	if [ -f "$_cc_seen" ] && [ "$(sed -n 1p "$_cc_seen")" = "$_cc_key" ] &&
		[ -n "$(find "$_cc_seen" -mmin -1)" ]; then
		CCACHE_REMOTE_STORAGE=$(sed -n 2p "$_cc_seen")
	else
		CCACHE_REMOTE_STORAGE=$(python3 "$TOP/vm/host/class-cache.py" "$CCACHE_REMOTE_STORAGE")
		mkdir -p "$BUILD"
		# Its URLs may hold a password: for this user's eyes only.
		(umask 077 && printf '%s\n%s\n' "$_cc_key" "$CCACHE_REMOTE_STORAGE" > "$_cc_seen.$$")
		mv "$_cc_seen.$$" "$_cc_seen"
	fi
	[ -n "$CCACHE_REMOTE_STORAGE" ] && export CCACHE_REMOTE_STORAGE || unset CCACHE_REMOTE_STORAGE
}

# merge_fragments FRAGMENT...: the settings of the FRAGMENTs (CONFIG_X=...
# and "# CONFIG_X is not set" lines), a later one's winning, in order.
merge_fragments() {
	cat "$@" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ || /^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
		sym = $0; sub(/^# /, "", sym); sub(/[= ].*/, "", sym)
		if (!(sym in last)) order[++n] = sym
		last[sym] = $0
	}
	END { for (i = 1; i <= n; i++) print last[order[i]] }'
}

# config_missing CONFIG FRAGMENT: the lines of FRAGMENT that CONFIG (a
# kernel's .config) does not hold, on one line.
config_missing() {
	missing=
	while read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$1" || missing="$missing $line" ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$1" || missing="$missing $line" ;;
		esac
	done < "$2"
	echo "$missing"
}

# ccache_misses: how many compilations ccache could not hand back, so far.
ccache_misses() {
	CCACHE_DIR="${CCACHE_DIR:-$BUILD/ccache}" ccache --print-stats 2>/dev/null |
		awk '$1 == "cache_miss" { n = $2 } END { print n + 0 }'
}
