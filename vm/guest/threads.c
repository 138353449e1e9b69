/*
 * threads: create threads until the kernel refuses, for lab 5 ("what 4K
 * stacks buy"). Each thread costs the kernel a task_struct and a kernel
 * stack (THREAD_SIZE: 8K at stage 2, 4K at stage 3) and costs user space
 * nothing: the threads are made with a raw clone() and spend their lives
 * in pause(), entered with int $0x80, which never touches a user stack.
 *
 * threads [STOP_KB [STEP]]: stops when clone() fails or when MemFree falls under
 * STOP_KB (default 8192): the same memory left at every stage, and no
 * need for the OOM killer, which would pick a second victim while the
 * first one's thousands of threads are still being freed. Prints, every
 * STEP threads (default 100) and at the end,
 *   threads: N kernelstack_kb: K memfree_kb: F
 * so that the count survives even if the OOM killer ends the program
 * (lab 5 makes this program its first choice), then
 *   threads: done N (REASON)
 * Exits, ending every thread with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clone_thread.h"
#include "meminfo.h"

#define CHECK		10	/* threads between two looks at MemFree */

static void report(long n)
{
	printf("threads: %ld kernelstack_kb: %ld memfree_kb: %ld\n", n,
	       meminfo("KernelStack"), meminfo("MemFree"));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long stop_kb = argc > 1 ? atol(argv[1]) : 8192;
	long step = argc > 2 ? atol(argv[2]) : 100;
	long n = 0, ret;

	report(0);
	for (;;) {
		ret = spawn();
		if (ret < 0) {
			report(n);
			printf("threads: done %ld (clone: %s)\n", n,
			       strerror((int)-ret));
			return 0;
		}
		if (++n % step == 0)
			report(n);
		if (n % CHECK == 0 && meminfo("MemFree") < stop_kb)
			break;
	}
	printf("threads: done %ld (MemFree under %ld kB)\n", n, stop_kb);
	return 0;
}
