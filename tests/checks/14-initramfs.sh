# A broken guest image fails where it is made: vm/host/initramfs.sh reads the
# archive it packed (vm/host/check-initramfs.py) and stops, naming what is
# missing, before anything could boot it. Each broken image is made with
# the real script, its file list edited on purpose; none may be written.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

expect "the project's initramfs is a guest that can start" \
	python3 "$TOP/vm/host/check-initramfs.py" "$BUILD/initramfs.cpio"

out=$BUILD/check/broken.cpio
# broken WHAT EDIT WORDS: edit the file list with sed EDIT; the build
# must fail, say WORDS, and write nothing.
broken() {
	rm -f "$out"
	rc=0
	said=$(INITRAMFS_LIST_HOOK="sed -i '$2' \$1" "$TOP/vm/host/initramfs.sh" "$out" 2>&1) || rc=$?
	echo "=== $1 (exit $rc): $said" >&2
	if [ $rc != 0 ] && echo "$said" | grep -q "$3" && [ ! -e "$out" ]; then
		ok "an initramfs with $1 is refused: '$3'"
	else
		not_ok "an initramfs with $1 is refused, saying '$3' (exit $rc; written: $([ -e "$out" ] && echo yes || echo no))"
	fi
}
broken "no /init" '/^file \/init /d' 'no /init'
broken "no /bin/sh" '/^slink \/bin\/sh /d' 'no /bin/sh'
broken "no busybox" '/^file \/bin\/busybox /d' 'no /bin/busybox'
broken "an x86-64 busybox" 's|^file /bin/busybox .*|file /bin/busybox /bin/true 0755 0 0|' \
	'/bin/busybox is not an i386'
broken "an /init that is not a program" 's|^file /init .*|file /init /etc/hostname 0755 0 0|' \
	'/init is neither'
broken "no /dev/console" '/^nod \/dev\/console /d' 'no /dev/console'
