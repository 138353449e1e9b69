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

#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_SIGHAND	0x00000800
#define CLONE_THREAD	0x00010000
#define CLONE_SYSVSEM	0x00040000
#define NR_CLONE	120
#define NR_PAUSE	29
#define CHECK		10	/* threads between two looks at MemFree */

/* A stack pointer for the children; they never push anything on it. */
static char child_stack[64];

/* clone(); the child loops in pause() forever, the parent gets the tid. */
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

/* A /proc/meminfo field, in kB; -1 if missing. */
static long meminfo(const char *field)
{
	char line[128];
	long value = -1;
	size_t len = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			value = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return value;
}

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
