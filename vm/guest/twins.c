/*
 * twins: leave a process of two threads asleep in the guest, for lab 7's
 * task. Its second thread has a pid of its own, its process's first
 * thread's as its tgid, and a kernel stack of its own: where() must name
 * a stack by the pid of the thread that owns it. And a child of it that
 * exited, never reaped: a task on the task list whose stack is gone (0).
 *
 * Returns once both threads exist (a pipe says so), the process asleep
 * in the background, so that a guest script goes on knowing they are
 * there.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int ready[2];

static void *second(void *arg)
{
	(void)arg;
	if (write(ready[1], "y", 1) != 1)
		return NULL;
	for (;;)
		pause();
}

int main(void)
{
	pthread_t thread;
	pid_t pid;
	char c;

	if (pipe(ready) != 0) {
		perror("twins: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("twins: fork");
		return 1;
	}
	if (pid > 0) {
		/* Its end closed: should the child die first, read() says so. */
		close(ready[1]);
		return read(ready[0], &c, 1) == 1 ? 0 : 1;
	}
	if (fork() == 0)
		_exit(0);
	if (pthread_create(&thread, NULL, second, NULL) != 0) {
		perror("twins: pthread_create");
		return 1;
	}
	for (;;)
		pause();
}
