#!/bin/sh
# vm/build/stage.sh K: stage K's kernel, then the lab modules built against
# it: what every lab and check needs of a stage (each step a no-op when
# nothing changed).
"$(dirname "$0")/kernel.sh" "$1" && exec "$(dirname "$0")/modules.sh" "$1"
