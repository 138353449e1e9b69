/*
 * Lab 5's task: predict the lab's thread count.
 *
 * Your copy is build/exercises/5/predict.c (make exercise N=5 made it).
 * make grade N=5 EXERCISE=1 compiles it for i386 on the host
 * (i686-linux-gnu-gcc -m32 -static: it runs only in the guest), boots stage 3 (4K stacks) with
 * it, runs it, then runs the lab's own measurement, threads (vm/guest/threads.c),
 * and compares.
 *
 * threads makes threads that cost user space nothing (a raw clone():
 * spawn(), which this file includes from vm/guest/clone_thread.h) until
 * MemFree in /proc/meminfo falls under 8192 kB: how many it makes is the
 * lab's thread count. Predict that count without making them all: make a
 * sample of threads, see what each one cost in /proc/meminfo, and work
 * out how many more would fit. Print three lines:
 *
 *   stack_kb_per_thread: S    what KernelStack grew by, per thread (kB)
 *   kb_per_thread: C          what MemFree fell by, per thread (kB)
 *   predicted_threads: N      how many threads threads will make
 *
 * The sample's threads live until your program exits (and take their
 * memory with them); the grader waits for it to come back before it
 * runs threads. labs/5/README.md, "Task", says more; make hint N=5 gives
 * one hint at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clone_thread.h"	/* spawn(): vm/guest/clone_thread.h, as threads */

#define STOP_KB		8192	/* threads stops when MemFree falls under it */
#define SAMPLE		5000	/* threads in your sample */

/*
 * TODO: the value of the /proc/meminfo line FIELD ("MemFree",
 * "KernelStack"), in kB; -1 if there is no such line. A line reads
 * "MemFree:          118656 kB".
 */
static long meminfo(const char *field)
{
	(void)field;
	return -1;
}

int main(void)
{
	/*
	 * TODO: read MemFree and KernelStack, make SAMPLE threads with
	 * spawn(), read them again, and print the three lines.
	 */
	printf("meminfo says MemFree is %ld kB\n", meminfo("MemFree"));
	return 0;
}
