#!/bin/sh
# vm/host/autograder.sh FOLDER [LAB...]: a Gradescope autograder bundle of
# this checkout (make autograder): FOLDER/setup.sh, FOLDER/run_autograder
# and FOLDER/autograder.zip, which holds them beside the checkout's
# committed files. Gradescope unpacks the zip into /autograder/source,
# runs setup.sh once as it builds its image, and then run_autograder for
# each submission: /autograder/submission (the files of the learner's
# make submission folder) in, /autograder/results/results.json out. LABS:
# the labs the assignment grades (all by default). Gradescope's image
# must be Debian 12 (its "base image" setting), where this project runs.
me=autograder.sh
. "$(dirname "$0")/lib.sh"
out=${1:?usage: autograder.sh FOLDER [LAB...]}
shift
labs=$*
mkdir -p "$out"
cat > "$out/setup.sh" <<'SETUP'
#!/bin/sh
# Gradescope's image: this project's packages, and every kernel a grade
# boots, built once here rather than at each submission.
set -eu
cd "$(dirname "$0")"
sh vm/host/apt-update.sh
sh vm/host/setup.sh
make -s kernels images
SETUP
cat > "$out/run_autograder" <<RUN
#!/bin/sh
# Gradescope runs this for each submission. AUTOGRADER_ROOT: another
# root than /autograder, laid out as Gradescope's (a check's).
set -eu
root=\${AUTOGRADER_ROOT:-/autograder}
cd "\$root/source"
exec make -s grade-one SUBMISSION="\$root/submission" RESULTS="\$root/results/results.json" LABS="$labs"
RUN
chmod +x "$out/setup.sh" "$out/run_autograder"
git -C "$TOP" rev-parse -q --verify HEAD > /dev/null || die "$TOP is not a git checkout with a commit"
# The checkout as it is: its committed files, with what is changed in
# them and not committed yet (a course's own points in a lab.toml).
ref=$(git -C "$TOP" stash create)
git -C "$TOP" archive --format=zip --add-file="$out/setup.sh" --add-file="$out/run_autograder" \
	-o "$out/autograder.zip.tmp" "${ref:-HEAD}"
mv "$out/autograder.zip.tmp" "$out/autograder.zip"
say "Gradescope's bundle: $out/autograder.zip (this checkout, setup.sh, run_autograder; labs: ${labs:-all})"
