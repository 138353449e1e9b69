# vm/host/kmake.sh: how a kernel tree is configured and compiled; sourced
# after vm/host/lib.sh by what builds in a kernel tree (kernel.sh,
# modules.sh, the shell checks through tests/lib.sh), never run. A change
# here changes every kernel (its compile flags or its .config), so
# kernel.sh's fingerprint holds this file's: an edit rebuilds each kernel
# once, through ccache.

# kernel_make SRC OBJ ARGS...: make in a kernel tree for $KARCH (i386
# unless set, karch), with O=OBJ.
# ccache pays off when a stage's tree is made again (after a patch's
# message was edited, say): the files get new mtimes, make recompiles
# them, and ccache hands back the objects whose inputs did not change
# (measured: about 65 s instead of about 220 s for a stage). Depend mode
# takes the headers from the compiler's own -MMD output instead of running
# the preprocessor again, and objects are stored uncompressed (about
# 150 MB per stage): a cold stage-0 build took 202 s this way, 204 s
# without ccache, and 216-246 s with compression on.
# The compiles are the same in every clone, so that one cache can serve
# them all (another clone's, a class's: ccache's own CCACHE_DIR and
# CCACHE_REMOTE_STORAGE, see the README): ccache hashes the paths under
# the build folder relative to the objects' folder, and the debug info
# names sources relative to the kernel tree (-fdebug-prefix-map, which
# ccache leaves out of its hash), so an object that another tree compiled
# still leads gdb (session.py puts the tree, the objects' folder and the
# stage's folder on its source path) to this tree's sources. A class
# cache that does not answer is left out before the build
# (class_cache_check, in kernel.sh and modules.sh). The kernel build gets
# none of our make flags (make -s would leave its log empty).
# nm and ar are gcc's wrappers, which name gcc's own LTO plugin: without
# one named, binutils' nm and ar load every plugin in /usr/lib/bfd-plugins
# for each file they read, and where clang's linker tools are installed
# that includes LLVM's gold plugin: 81 ms per nm call, against 10 ms with
# `nm --plugin` and 25 ms through gcc-nm, one process more (measured on
# kernel/fork.o). Kbuild runs nm on every object it compiles
# (scripts/check-local-export): a stage's build from a warm ccache took
# 114 s with plain nm and ar, 89 s with `--plugin`.
kernel_make() {
	# The folders as Kbuild names them (abs_srctree, abs_objtree): real paths.
	_km_src=$(cd "$1" && pwd -P) _km_obj=$(mkdir -p "$2" && cd "$2" && pwd -P); shift 2
	_km_maps="-fdebug-prefix-map=$_km_src/= -fdebug-prefix-map=$_km_obj=."
	# A lab module (M=, in the stage's modules/src) is named from the
	# stage's folder; gcc takes the last map that matches, so the tree's
	# and the objects' own come after it.
	case " $* " in *" M="*) _km_maps="-fdebug-prefix-map=${_km_obj%/*}/= $_km_maps" ;; esac
	# This host's compilers for the machine (vm/hosts.toml): the host's
	# gcc, or a cross compiler's prefix, which Kbuild gives its binutils
	# and exports to vm/host/cc.
	_km_cross=$(cross_of "${KARCH:-i386}")
	# ccache hashes the locale (gcc's messages follow it): one locale for
	# every learner's compiles, English, the one whose errors run_logged
	# picks out.
	CCACHE_DIR="${CCACHE_DIR:-$BUILD/ccache}" CCACHE_BASEDIR="$(mkdir -p "$BUILD" && cd "$BUILD" && pwd -P)" \
		CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1 CCACHE_NOCOMPRESS=1 \
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u LC_ALL -u LC_CTYPE -u LC_MESSAGES LANG=C.UTF-8 \
		make -C "$_km_src" O="$_km_obj" ARCH="${KARCH:-i386}" CROSS_COMPILE="$_km_cross" \
		CC="$TOP/vm/host/cc" KCFLAGS="$_km_maps" KAFLAGS="$_km_maps" \
		NM="${_km_cross}gcc-nm" AR="${_km_cross}gcc-ar" "$@"
}

# kernel_config SRC OBJ FRAGMENT: OBJ/.config, i386 tinyconfig with
# FRAGMENT merged on top, every option it leaves unset at its default.
# Each pass of Kconfig takes about 5 s here, most of it the compiler
# probes it runs, and after olddefconfig the build would make one more to
# write include/config/auto.conf: syncconfig writes both in one pass. It
# asks about each unset option, and an empty answer takes the default,
# as olddefconfig does (the same .config, byte for byte).
kernel_config() {
	kernel_make "$1" "$2" -j"$JOBS" tinyconfig &&
		"$1/scripts/kconfig/merge_config.sh" -m -O "$2" "$2/.config" "$3" &&
		yes '' | kernel_make "$1" "$2" syncconfig
}
