# The series adds no compiler warnings: in every stage, each C file the
# patches change is compiled again (its object removed first) and the
# compiler must say nothing. The headers the series changes only change
# values (THREAD_SIZE_ORDER, the vermagic string, declarations), which a
# full build would report on too; a cold build's log is in
# build/stage-K/obj/build.log.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

last=$(stages | tail -n 1)
files=$(cat $(stage_patches "$last") | sed -n 's|^+++ b/\(.*\)\.c$|\1|p' | sort -u)
[ -n "$files" ] || { not_ok "the series changes C files"; exit 0; }

for k in $(stages); do
	obj=$(stage_obj "$k")
	objs=
	for f in $files; do
		rm -f "$obj/$f.o"
		objs="$objs $f.o"
	done
	log=$BUILD/check/warnings-stage$k.log
	# shellcheck disable=SC2086
	kernel_make "$(stage_src "$k")" "$obj" LOCALVERSION=-stage"$k" $objs > "$log" 2>&1 && rc=0 || rc=$?
	n=$(grep -c 'warning:' "$log" || true)
	cat "$log" >&2
	if [ $rc = 0 ] && [ "$n" = 0 ]; then
		ok "stage $k compiles$objs without warnings"
	else
		not_ok "stage $k compiles$objs without warnings ($n warnings, exit $rc)"
	fi
done
