# kstack-workbook: the one entry point. `make help` lists the targets.
#
# Plain variables with defaults, overridable on the command line:
#   N      lab or stage number (make lab N=0)
#   BUILD  build cache: kernel trees, O= folders, initramfs, runs (build/)
#   ACCEL  QEMU accelerator: tcg (default, any host); kvm needs /dev/kvm
#          and has hung i386 guests where we had one
#   CPUS, MEM   guest CPUs (2) and memory in MiB (128)
#   JOBS   parallel kernel build jobs (cores + 1)
#   HOST_CROSS=1  an arm64 host's path on this one: cross compilers,
#          gdb-multiarch, crash under qemu-user (vm/hosts.toml); give it
#          a build folder of its own (BUILD=build-cross)

N ?=
BUILD ?= $(CURDIR)/build
TOP := $(CURDIR)
export TOP BUILD ACCEL CPUS MEM JOBS KERNEL

# One kernel build at a time; prerequisites run in the order written.
.NOTPARALLEL:
.DEFAULT_GOAL := help

# What make needs to know of the build layer and of the facts, as make
# variables (vm/host/info.sh make): STAGES; LABS; EXTRA, the kernels
# beside the stages (lab 7's: vm/stages.toml's [kernels.NAME] rows);
# IMAGES, every machine's guest image ([machine.NAME] records);
# LAB_IMAGE_n, lab n's. Made again when one of its sources changes, so
# that a warm make runs no program to learn them.
# HOST_RECORD, HOST_GDB and CROSS_machine: this host's (vm/hosts.toml),
# exported to the scripts.
MAKE_FACTS = $(BUILD)/make$(if $(filter-out 0,$(HOST_CROSS)),-cross).mk
include $(MAKE_FACTS)
export HOST_CROSS HOST_GDB CROSS_i386 CROSS_x86_64
$(MAKE_FACTS): vm/host/info.sh vm/host/lib.sh vm/session/facts.py vm/stages.toml vm/hosts.toml \
		$(wildcard labs/*/lab.toml) labs $(wildcard labs/*/) $(wildcard patches/*/*.patch) patches \
		$(wildcard patches/*/)
	@mkdir -p $(BUILD)
	@vm/host/info.sh make > $@.tmp || { rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@

# The project's Python is one tree of packages rooted here (vm.session,
# labs, tests, book): a program runs as a module, from this folder.
KS = python3 -m vm.session.ks
INITRAMFS = $(BUILD)/initramfs.cpio
BUSYBOX = $(BUILD)/deps/busybox/bin/busybox

.PHONY: help deps kernel kernels initramfs images boot lab replay exercise hint crash check mutants variants submission grade-class grade-one autograder check-release bench clean distclean \
	transcripts book serve promote \
	check-lab check-stage grade

help:
	@echo 'make lab N=k     build what is missing, boot stage k halted, attach gdb,'
	@echo '                 stop where lab k begins (labs: $(shell ls labs | grep -x "[0-9]*" | tr "\n" " "))'
	@echo 'make replay N=k  record lab k'"'"'s run on one CPU, then open gdb on its replay, at the'
	@echo '                 death or the lab'"'"'s stop: reverse-stepi, reverse-continue, ks-who-wrote'
	@echo 'make grade N=k   check lab k'"'"'s observations in batch mode, and your answers and predictions'
	@echo '                 (answers/labk.txt, or ANSWERS=file: key = value lines)'
	@echo 'make grade       every lab in one table: task passed, questions right, predictions made'
	@echo '                 (from answers/labN.txt; a lab not started is reported, not built or booted)'
	@echo 'make exercise N=k  your start for lab k'"'"'s exercise: a file to write (labs $(TASK_LABS)) or a kernel tree ($(KERNEL_EXERCISE_LABS)); then'
	@echo '                 make grade N=k EXERCISE=1 grades it on a fresh guest (a kernel: built first);'
	@echo '                 make hint N=k: one more hint each time'
	@echo 'make check       build every stage and run all checks (ends "N passed, M failed")'
	@echo 'make mutants     grade each task'"'"'s reference and wrong solutions (lab.toml'"'"'s [[exercise.wrong]])'
	@echo '                 3 times each, in a table; MUTANTS_KERNEL=1: labs 3 and 4'"'"'s kernel ones too'
	@echo 'make variants    grade every choice of every lab'"'"'s learner variant once (tests/variants.py)'
	@echo 'make submission [N=k]  your work as one folder for your course: build/submission/ID'
	@echo 'make grade-class SUBMISSIONS=folder [LABS="0 1"]  a teacher'"'"'s: every learner graded, each in a'
	@echo '                 sandbox (bubblewrap): results.json each, gradebook.csv, summary.html (build/class);'
	@echo '                 CLASS_JOBS=n at a time (the cores), or SCHEDULER=slurm: one Slurm array job'
	@echo 'make autograder [LABS="2"]  a Gradescope bundle (build/autograder/autograder.zip) that grades one'
	@echo '                 submission into results.json (make grade-one SUBMISSION=folder RESULTS=file)'
	@echo 'make check-release LINUX_SOURCE=VERSION|file.deb  the whole make check on another 6.1 point'
	@echo '                 release (a maintainer'"'"'s: build-VERSION/ of its own)'
	@echo 'make crash N=k   dump stage k after lab 6'"'"'s overflow panic and open the dump with crash'
	@echo '                 (N=7: lab 7'"'"'s x86_64 kernel after its guard-page panic; drgn reads it too)'
	@echo 'make boot N=k    boot stage k to a shell on this terminal (Ctrl-A X quits)'
	@echo 'make deps        install missing Debian packages, fetch the guest busybox'
	@echo 'make kernel N=k  build stage k'"'"'s kernel (a no-op when nothing changed)'
	@echo 'make kernels     build every stage (stages: $(STAGES)) and the kernels beside them ($(EXTRA))'
	@echo 'make initramfs   pack the guest initramfs'
	@echo 'make transcripts run the workbook'"'"'s gdb sessions (its transcripts and lab 2'"'"'s figure)'
	@echo 'make book        render the workbook to build/book/index.html and index.pdf (no kernel needed:'
	@echo '                 its real-run material is kept in book/runs/)'
	@echo 'make serve       the workbook in a browser, a terminal beside each lab'"'"'s chapter running'
	@echo '                 make lab N=k (then a shell): the URL and its token are printed; loopback'
	@echo '                 only unless SERVE_HOST=ADDRESS; SERVE_PORT, SERVE_GUESTS (at most, sessions)'
	@echo 'make promote     keep the material the last make check made in book/runs/ (review: git diff)'
	@echo 'make bench       measure the budgets: cold/warm lab, build ahead, boot, graders, the config'"'"'s'
	@echo '                 build cost, a class'"'"'s shared compile cache (about 2 hours; COLD=0,'
	@echo '                 CONFIG_COST=0, CLASS=0, CLASS_CHECK=0 skip the longest parts)'
	@echo 'make clean       remove project outputs (initramfs, runs); keep trees and kernels'
	@echo 'make distclean   remove the whole build folder ($(BUILD))'
	@echo 'KERNEL=name      make lab/grade/crash N=k on another kernel of the lab'"'"'s machine (vm/stages.toml)'
	@echo 'In every lab'"'"'s gdb (help NAME): '"$$(gdb-scripts/registry.sh COMMANDS)"
	@echo '  and $$'"$$(gdb-scripts/registry.sh FUNCTIONS | sed 's/ / $$/g')"
	@echo 'Variables: N BUILD ACCEL(tcg) CPUS(2) MEM(128) JOBS LAB_TIMEOUT(120) SHOW(=1: print QEMU'"'"'s command)'
	@echo '           AHEAD(=0: do not build the next lab'"'"'s stage in the background), CHECKS=regex for make check'
	@echo '           LEARNER=id: whose variant of the numbers the labs ask (default: build/learner, made once)'

# The host's packages and the guests' busyboxes, checked again when the
# package database, the list or a fetched program changes (make deps
# after an apt-get remove installs it again: the database changed). The
# mark is made anew each time: one left by sudo make deps is root's.
DEPS_CHECKED = $(BUILD)/deps/checked
CRASH_I386 = $(BUILD)/deps/crash/usr/bin/crash
deps: $(DEPS_CHECKED)

$(DEPS_CHECKED): vm/host/deps.sh vm/stages.toml $(wildcard /var/lib/dpkg/status) $(CRASH_I386) \
		$(BUSYBOXES) $(if $(KS_EXTRA_PACKAGES),FORCE)
	@vm/host/deps.sh
	@rm -f $@ && touch $@

$(CRASH_I386):
	@vm/host/deps.sh

FORCE:

# A lab make knows (LABS) needs no program to say so; any other N gets
# vm/session/ks.py's refusal, with the list of labs.
check-lab:
	@$(if $(and $(filter 1,$(words $(N))),$(filter $(LABS),$(N))),,$(KS) valid "$(N)")

check-stage:
	@vm/host/info.sh valid-stage "$(N)"

# A stage's kernel, then the lab modules built against it (vm/guest/modules/).
kernel: check-stage deps
	@vm/host/stage.sh $(N)

kernels: deps
	@for k in $(STAGES) $(EXTRA); do vm/host/stage.sh $$k || exit 1; done

$(BUSYBOX):
	@vm/host/deps.sh

# The initramfs is the same for every stage; make knows all its inputs.
$(INITRAMFS): vm/guest/init vm/host/initramfs.sh vm/host/check-initramfs.py vm/stages.toml vm/hosts.toml $(wildcard vm/guest/*.c vm/guest/*.h) $(wildcard labs/*/guest.sh) \
		$(wildcard tests/guest/*.sh) $(BUSYBOX)
	@vm/host/initramfs.sh $@
	@echo "[make] initramfs: $@"

$(BUILD)/deps/busybox-%/bin/busybox:
	@vm/host/deps.sh
# Made by deps.sh, not by make: never an intermediate file to delete.
.PRECIOUS: $(BUILD)/deps/busybox-%/bin/busybox

# Another machine's guest image (vm/stages.toml's record names it).
$(BUILD)/initramfs-%.cpio: vm/guest/init $(wildcard vm/guest/*.c vm/guest/*.h) vm/host/initramfs.sh vm/hosts.toml \
		vm/host/check-initramfs.py vm/stages.toml $(wildcard labs/*/guest.sh) \
		$(wildcard tests/guest/*.sh) $(BUILD)/deps/busybox-%/bin/busybox
	@vm/host/initramfs.sh $@ $*
	@echo "[make] initramfs: $@"

initramfs: $(INITRAMFS)

# Every machine's guest image.
images: $(IMAGES)

# vm/session/ks.py builds what the lab or stage needs (kernel.sh and modules.sh are
# no-ops when nothing changed), then boots it (vm/session/session.py).
boot: check-stage deps initramfs
	@$(KS) boot $(N)

# The guest image of lab N's kernel's machine (KERNEL= may name another
# kernel of the same lab: vm/session/facts.py).
LAB_IMAGE = $(BUILD)/$(or $(LAB_IMAGE_$(N)),initramfs.cpio)

lab: check-lab deps $(LAB_IMAGE)
	@$(KS) lab $(N)

# Lab k's run, recorded once on one CPU, then replayed under gdb, which can
# run it backwards (vm/session/replay.py); EXERCISE=1: the exercise kernel.
replay: check-lab deps $(LAB_IMAGE)
	@$(KS) replay $(N)

# The learner's starting point for lab k's exercise: a file of their own
# (a lab's task: its [exercise] has no base stage), or a kernel tree (one with);
# EXERCISE=1 makes `make lab` and `make grade` build and boot it.
exercise: check-lab deps
	@$(KS) exercise $(N)

# One more hint for lab k's exercise each time.
hint: check-lab
	@$(KS) hint $(N)

# A post-mortem: dump stage k after lab 6's panic (N=7: lab 7's x86_64
# kernel after its guard-page panic), open it with crash.
crash: deps $(LAB_IMAGE)
	@$(KS) crash $(N)

# ANSWERS=file: also check a learner's answers ("key = value" lines); by
# default answers/labN.txt, if there is one. With no N, one table of every
# lab (vm/session/grading.py grade_all, ANSWERS: a folder of labN.txt files): it builds and
# boots only for a lab that was started, so it needs none of the rest.
grade: $(if $(N),check-lab deps $(LAB_IMAGE))
	@$(if $(N),$(KS) grade $(N) $(or $(ANSWERS),$(wildcard answers/lab$(N).txt)),$(KS) grade-all $(ANSWERS))

check: deps kernels images
	@tests/run.sh

# Each task's wrong solutions (labs/N/lab.toml's [[exercise.wrong]]) and
# its reference, graded 3 times each (tests/mutants.py); MUTANTS_KERNEL=1
# adds the kernel exercises', each an incremental kernel build.
mutants: deps images
	@python3 -m tests.mutants

# Every choice of every lab's learner variant, graded once (tests/variants.py).
variants: deps images
	@python3 -m tests.variants

# A learner's work as one folder for the course (vm/session/submission.py):
# build/submission/ID, or SUBMISSION=folder.
submission:
	@python3 -m vm.session.submission "$(SUBMISSION)" $(N)

# A class graded at once, each learner in a sandbox (vm/session/classgrade.py):
# SUBMISSIONS=folder of learners' folders, CLASS_OUT (build/class), LABS.
grade-class: deps images
	@$(if $(SUBMISSIONS),,$(error SUBMISSIONS=folder: one folder per learner, as make submission writes))
	@python3 -m vm.session.classgrade "$(SUBMISSIONS)" "$(or $(CLASS_OUT),$(BUILD)/class)" $(LABS)

# One submission into a Gradescope results.json (what run_autograder runs).
grade-one: deps images
	@$(if $(and $(SUBMISSION),$(RESULTS)),,$(error SUBMISSION=folder RESULTS=results.json))
	@python3 -m vm.session.classgrade --single "$(SUBMISSION)" "$(RESULTS)" $(LABS)

# A Gradescope autograder bundle of this checkout (vm/host/autograder.sh).
autograder:
	@vm/host/autograder.sh "$(BUILD)/autograder" $(LABS)

# The workbook. Its transcripts, tables and grader outputs come from real
# runs, kept in book/runs/: make book renders from them, with no kernel;
# make check makes them again and compares (book/kept.py); make promote
# keeps what the last make check made, for review as a diff of book/runs/.
# The book's material is the book's variant (vm/session/variant.py).
transcripts: deps kernels initramfs
	@LEARNER=book python3 -m book.transcripts

# (No deps: the book needs only what sh vm/host/setup.sh installed.)
book:
	@book/build.sh

# The book and a live session of each lab on one page (book/serve/). It
# runs under Debian's own python3, for which python3-terminado is
# installed (another python3 first on PATH, a pyenv's, lacks it).
serve: deps
	@/usr/bin/python3 -m book.serve.server

promote:
	@python3 -m book.kept promote

# The book's variant: the budgets are measured on the book's runs (lab
# 6's dump among them), not on a dump a learner's variant needs first.
bench: deps kernels images
	@LEARNER=book tests/bench.sh

# A maintainer's run of the whole suite on another 6.1 point release
# (LINUX_SOURCE: a version Debian's archive still has, or a .deb), in a
# build folder of its own, with this checkout's compile cache.
check-release:
	@test -n "$(LINUX_SOURCE)" || { echo 'make check-release LINUX_SOURCE=VERSION (6.1.176-1, say) or LINUX_SOURCE=file.deb' >&2; exit 2; }
	@set -e; got=$$(vm/host/other-release.sh "$(LINUX_SOURCE)"); \
	release=$${got%% *}; \
	echo "[make] check-release: linux-source-6.1 $$release, in $(CURDIR)/build-$$release"; \
	CCACHE_DIR=$${CCACHE_DIR:-$(BUILD)/ccache} $(MAKE) --no-print-directory check \
		BUILD=$(CURDIR)/build-$$release TARBALL=$${got#* }

clean:
	rm -rf $(BUILD)/run $(INITRAMFS) $(BUILD)/bench

distclean:
	rm -rf $(BUILD)
