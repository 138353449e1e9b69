# Guest workload of lab 7 (x86_64): lab 4's descent, 64 frames of 256
# bytes, 16 KiB of locals: more than the whole of a 16K stack, so the
# recursion itself runs off its end. First a few lines to the serial
# port, so that device interrupts come while the lab waits at its first
# stop (__common_interrupt, after boot); the descent starts a second
# later, when the learner has continued.
i=0
while [ $i -lt 5 ]; do echo "lab 7: serial traffic before the descent"; i=$((i + 1)); done
sleep 1
ks_mode=frames ks_n=64 . /labs/4/guest.sh
