// SPDX-License-Identifier: MIT
/*
 * thp_fork: the snapshot test's workload on this machine.  Maps a 2 MiB
 * PMD-aligned anonymous region with MADV_HUGEPAGE, writes it, forks; the
 * child unmaps the first half (the series' partially mapped THP).  Prints
 * "PARENT CHILD THP" (THP: 1 if the kernel gave a PMD-mapped THP, per
 * smaps AnonHugePages) and waits until its standard input closes.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define THP (2ul << 20)

/* AnonHugePages of the VMA at @addr in our smaps, in kB. */
static long anon_huge_kb(void *addr)
{
	char line[256];
	unsigned long a = 0, b = 0;
	long kb = -1, v;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a == (unsigned long)addr;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			kb = v;
	}
	if (f)
		fclose(f);
	return kb;
}

int main(void)
{
	char *raw = mmap(NULL, 2 * THP, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p, c;
	pid_t child;
	int go[2], done[2];

	if (raw == MAP_FAILED || pipe(go) || pipe(done))
		return 1;
	p = (char *)(((unsigned long)raw + THP - 1) & ~(THP - 1));
	madvise(p, THP, MADV_HUGEPAGE);
	memset(p, 1, THP);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(go[1]);
		munmap(p, THP / 2);
		if (write(done[1], "u", 1) != 1)	/* unmapped: the parent may go on */
			_exit(1);
		if (read(go[0], &c, 1) < 0)	/* wait until the parent says go */
			return 1;
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	if (read(done[0], &c, 1) != 1)	/* the child has unmapped its half */
		return 1;
	printf("%d %d %d\n", (int)getpid(), (int)child, anon_huge_kb(p) == 2048);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(go[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
