# Every stage's kernel is built with today's vm/host/kernel.config: its .config
# holds each line of the fragment (vm/host/kernel.sh reconfigures when the
# fragment changes; a kernel built from a stale .config would pass every
# other check while testing another config). The comparison must catch an
# option the .config lacks, or it proves nothing.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

for k in $(stages); do
	missing=$(config_missing "$(stage_obj "$k")/.config" "$TOP/vm/host/kernel.config")
	if [ -z "$missing" ]; then
		ok "stage $k: its .config holds every option of vm/host/kernel.config"
	else
		not_ok "stage $k: its .config lacks$missing (built before vm/host/kernel.config changed?)"
	fi
done

probe=$BUILD/check/config-probe
printf '%s\n' 'CONFIG_SMP=y' 'CONFIG_KSTACK_NO_SUCH_OPTION=y' '# CONFIG_SMP is not set' > "$probe"
missing=$(config_missing "$(stage_obj 0)/.config" "$probe")
case $missing in
" CONFIG_KSTACK_NO_SUCH_OPTION=y # CONFIG_SMP is not set")
	ok "the comparison catches an option set that the .config lacks, and one unset that it sets" ;;
*)	not_ok "the comparison missed a difference: got '$missing'" ;;
esac
