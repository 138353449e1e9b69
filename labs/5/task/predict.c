/*
 * Lab 5's task: predict the lab's thread count.
 *
 * Your copy is build/exercises/5/predict.c (make exercise N=5 made it).
 * make grade N=5 EXERCISE=1 compiles it for i386 on the host (gcc -m32
 * -static: it runs only in the guest), boots stage 3 (4K stacks) with
 * it, runs it, then runs the lab's own measurement, threads (vm/guest/threads.c),
 * and compares.
 *
 * threads makes threads that cost user space nothing (a raw clone(), as
 * spawn() below) until MemFree in /proc/meminfo falls under 8192 kB: how
 * many it makes is the lab's thread count. Predict that count without
 * making them all: make a sample of threads, see what each one cost in
 * /proc/meminfo, and work out how many more would fit. Print three
 * lines:
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

#define STOP_KB		8192	/* threads stops when MemFree falls under it */
#define SAMPLE		5000	/* threads in your sample */

#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_SIGHAND	0x00000800
#define CLONE_THREAD	0x00010000
#define CLONE_SYSVSEM	0x00040000
#define NR_CLONE	120
#define NR_PAUSE	29

/* A stack pointer for the children; they never push anything on it. */
static char child_stack[64];

/*
 * One more thread, as threads makes them: a raw clone() whose child
 * loops in pause() forever. Returns its thread id, or -errno.
 */
static long spawn(void)
{
	long ret;

	asm volatile("int $0x80\n\t"
		     "test %%eax, %%eax\n\t"
		     "jnz 1f\n"
		     "2:\tmovl %[pause], %%eax\n\t"
		     "int $0x80\n\t"
		     "jmp 2b\n"
		     "1:"
		     : "=a"(ret)
		     : "0"(NR_CLONE),
		       "b"(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			   CLONE_THREAD | CLONE_SYSVSEM),
		       "c"(child_stack + sizeof(child_stack)), "d"(0), "S"(0),
		       "D"(0), [pause] "i"(NR_PAUSE)
		     : "memory");
	return ret;
}

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
