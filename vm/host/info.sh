#!/bin/sh
# vm/host/info.sh WHAT: what make asks of the build layer (vm/host/lib.sh),
# without sourcing it in a one-liner:
#   stages         the stages patches/ makes, one per line
#   valid-stage N  nothing if N is a stage; else a clear error, and exit 1
#   make           all make needs to know, as make variables: the Makefile
#                  includes it (build/make.mk), made again when its sources
#                  change, so that a warm make runs no program to learn it
. "$(dirname "$0")/lib.sh"

case ${1:-} in
stages) stages ;;
make)
	# Paths under $(TOP): the file stays true if the checkout moves.
	echo "STAGES := $(stages | tr '\n' ' ')"
	py vm.session.facts make ;;
valid-stage)
	valid_stage "${2:-}" || die "unknown stage N=${2:-}; stages: $(stages | tr '\n' ' ')" ;;
*) die "usage: info.sh stages | valid-stage N | make" ;;
esac
