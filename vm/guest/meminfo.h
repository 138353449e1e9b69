/*
 * meminfo(FIELD): the value of the /proc/meminfo line FIELD ("MemFree",
 * "KernelStack"), in kB; -1 if there is no such line. threads.c and
 * fragment.c read memory this way; lab 5's task writes its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
