/*
 * dentries DIR N: look up N names that do not exist in DIR, for lab 5's
 * task. On sysfs each lookup leaves a negative dentry that the kernel
 * keeps and may reclaim: slab memory (SReclaimable, about 120 bytes a
 * name) that MemAvailable counts as available and MemFree does not.
 * threads stops where MemFree falls under its line, long before the
 * kernel reclaims any of it: a prediction of its count must read MemFree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	long n, i;
	char name[256];
	struct stat st;

	if (argc != 3) {
		fprintf(stderr, "usage: dentries DIR N\n");
		return 2;
	}
	n = atol(argv[2]);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/no-such-name-%ld", argv[1], i);
		stat(name, &st);
	}
	return 0;
}
