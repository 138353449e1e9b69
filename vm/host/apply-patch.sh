#!/bin/sh
# vm/host/apply-patch.sh DIR PATCH [REJECTS]: apply PATCH to the tree DIR
# as the series is applied everywhere (stages, exercises, checks): exactly.
# --fuzz=0: a hunk that only applies with fuzz no longer matches this tree
# (a moved line is fine, a changed context line is not). Rejected hunks go
# to REJECTS, by default nowhere; patch's own words to stdout.
exec patch -p1 -d "$1" --fuzz=0 --no-backup-if-mismatch --reject-file="${3:--}" < "$2"
