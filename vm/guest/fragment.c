/*
 * fragment KEEP_MB: leave no free pair of pages, for lab 5's order-1 test.
 *
 * Takes all free memory but KEEP_MB megabytes, one page at a time (mmap
 * and touch), then gives every other page back (munmap; the lab kernels
 * have no madvise, tinyconfig leaves ADVISE_SYSCALLS out). Pages
 * handed out one after another are mostly neighbours in physical memory,
 * so the pages given back are mostly single: free order-0 pages whose
 * buddies this program still holds. Without compaction or swap (the lab
 * kernels have neither) the kernel cannot pair them up again, so an
 * order-1 allocation (an 8K stack) finds few free blocks while an order-0
 * one (a 4K stack) finds plenty. /proc/buddyinfo shows the result.
 *
 * Prints "fragment: ready ..." and holds its pages until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "meminfo.h"

int main(int argc, char **argv)
{
	long keep_kb = (argc > 1 ? atol(argv[1]) : 4) * 1024;
	long page = sysconf(_SC_PAGESIZE), pages, i;
	char *mem;

	pages = (meminfo("MemFree") - keep_kb) * 1024 / page;
	if (pages <= 0) {
		fprintf(stderr, "fragment: less than %ld kB free\n", keep_kb);
		return 1;
	}
	mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("fragment: mmap");
		return 1;
	}
	for (i = 0; i < pages; i++)
		mem[i * page] = 1;
	for (i = 1; i < pages; i += 2)
		if (munmap(mem + i * page, page)) {
			perror("fragment: munmap");
			return 1;
		}
	printf("fragment: ready, holding %ld of %ld pages, %ld kB free\n",
	       (pages + 1) / 2, pages, meminfo("MemFree"));
	fflush(stdout);
	for (;;)
		pause();
}
