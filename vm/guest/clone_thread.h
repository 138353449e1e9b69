/*
 * spawn(): one more thread that costs user space nothing, for lab 5.
 *
 * A raw clone() (CLONE_VM | CLONE_THREAD ...) whose child never returns
 * into C: it loops in pause(), entered with int $0x80, which touches no
 * user stack, so all children can share the 64 bytes below. Each one
 * costs the kernel a task_struct and a kernel stack, and nothing else.
 * threads.c uses it, and so does lab 5's task (labs/5/task/predict.c):
 * the prediction's sample threads are the very threads it predicts.
 *
 * Returns the new thread's id, or -errno.
 */
#define CLONE_VM	0x00000100
#define CLONE_FS	0x00000200
#define CLONE_FILES	0x00000400
#define CLONE_SIGHAND	0x00000800
#define CLONE_THREAD	0x00010000
#define CLONE_SYSVSEM	0x00040000
#define NR_CLONE	120
#define NR_PAUSE	29

static char child_stack[64];

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
