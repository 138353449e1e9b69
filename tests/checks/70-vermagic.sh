# The module vermagic tells the stack size apart, as in 2.6: a module
# built with patches/3/0001's CONFIG_4KSTACKS=y carries "4KSTACKS ", and
# one built for the final stage 3 (4K only, option gone) carries no tag.
# Build-only: tests/module/ is compiled against each kernel tree, never
# loaded anywhere.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

last=$(stages | tail -n 1)
option_patch=$(ls "$TOP"/patches/3/*.patch 2>/dev/null | head -n 1)
[ "$last" -ge 3 ] && [ -n "$option_patch" ] || { not_ok "the series has a stage 3"; exit 0; }

kmake() { kernel_make "$@"; }

# vermagic SRC OBJ: build the probe module against a prepared tree and
# print its vermagic string.
vermagic() {
	mod=$BUILD/vermagic/mod-$(basename "$(dirname "$2")")
	rm -rf "$mod"
	mkdir -p "$mod"
	cp "$TOP"/tests/module/* "$mod"
	kmake "$1" "$2" M="$mod" modules >&2
	strings -a "$mod/vermagic_probe.ko" | sed -n 's/^vermagic=//p'
}

# The intermediate tree: every patch up to and including the option's.
inter=$BUILD/vermagic/option
if [ ! -f "$inter/src.done" ]; then
	rm -rf "$inter"
	mkdir -p "$inter"
	cp -al "$PRISTINE" "$inter/src"
	for p in $(stage_patches 2) "$option_patch"; do
		"$TOP/vm/host/apply-patch.sh" "$inter/src" "$p" >&2
	done
	touch "$inter/src.done"
fi
mkdir -p "$inter/obj"
# Configured as every stage is (vm/host/kmake.sh's kernel_config), with the
# option set on top of the lab's fragment.
{ cat "$TOP/vm/host/kernel.config"; echo CONFIG_4KSTACKS=y; } > "$inter/fragment.config"
kernel_config "$inter/src" "$inter/obj" "$inter/fragment.config" >&2
kmake "$inter/src" "$inter/obj" -j"$JOBS" modules_prepare >&2

with_option=$(vermagic "$inter/src" "$inter/obj")
echo "with CONFIG_4KSTACKS=y: $with_option" >&2
case $with_option in
*" 4KSTACKS "*) ok "with patches/3/0001 and CONFIG_4KSTACKS=y, vermagic carries the tag: '$with_option'" ;;
*) not_ok "with patches/3/0001 and CONFIG_4KSTACKS=y, vermagic carries 4KSTACKS (got '$with_option')" ;;
esac

final=$(vermagic "$(stage_src "$last")" "$(stage_obj "$last")")
echo "stage $last: $final" >&2
case $final in
*4KSTACKS*|'') not_ok "stage $last's vermagic has no 4KSTACKS tag (got '$final')" ;;
*) ok "stage $last's vermagic has no 4KSTACKS tag: '$final'" ;;
esac
