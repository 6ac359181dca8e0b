/* SPDX-License-Identifier: MIT */
/*
 * What the two guest programs share: the scenario runner (foliosim-guest.c)
 * and the differential fuzzer (gfuzz*.c, gfuzz.h); both observe the kernel
 * through procfs.h.  Both drive worker processes that
 * obey one-line commands over a pair of FIFOs:
 *
 *   mmap NAME SIZE ORDER FLAGS GUARD   (FLAGS: 1 MAP_SHARED, 2 MAP_HUGETLB;
 *                                       GUARD 1: PROT_NONE guards around it)
 *   mmapf NAME SIZE ORDER PATH         (a named file, MAP_PRIVATE)
 *   touch|read|munmap|dontneed|pageout|collapse NAME OFF LEN
 *   mprotect NAME OFF LEN PROT         (PROT: FSIM_PROT_* bits)
 *   mremap SRC OFF LEN DST KEEP        (see worker_mremap())
 *   fork CHILD | ping | exit
 *
 * and answer "ok [value]" or "err ERRNO".
 */
#ifndef FOLIOSIM_GUEST_H
#define FOLIOSIM_GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "foliosim/foliosim.h"

#define MAX_REGIONS 16
#define PAGE 4096ul
#define PMD_BYTES (PAGE << 9)

/* The "mmap" request's FLAGS. */
#define MAP_REQ_SHMEM	0x1	/* MAP_SHARED */
#define MAP_REQ_HUGETLB	0x2	/* MAP_HUGETLB of the default (PMD) hstate */

/* The controller's side of a worker's FIFOs under @dir. */
/* Creates them afresh (an old pair is removed); 0 or -errno. */
int worker_fifos_create(const char *dir, const char *name);
/* Opens the controller's ends; false (nothing left open) if it cannot. */
bool worker_fifos_open(const char *dir, const char *name, FILE **cmd, FILE **rsp);
void worker_fifos_remove(const char *dir, const char *name);
/* Sends one command line and reads the answer into @reply (newline cut):
 * 1 for "ok ...", 0 for another answer, -1 for none (the worker died). */
int worker_vsend(FILE *cmd, FILE *rsp, char *reply, size_t len, const char *fmt,
		 va_list ap);
/* A forked worker's life: opens its FIFOs, obeys commands, _exit()s. */
void worker_loop(const char *dir, const char *name) __attribute__((noreturn));
/* Writes @value to a sysfs/procfs file; 0 or -errno. */
int write_str(const char *path, const char *value);
/* Waits until the kernel has torn down the mm of exiting task @pid. */
void wait_mm_gone(pid_t pid);

/* The differential fuzzer: @steps random system calls, seeded by @seed.
 * Prints its report on stdout; returns the number of mismatches (or -1 if
 * it could not run). */
long gfuzz_run(enum fsim_mode mode, unsigned long steps, uint64_t seed, bool verbose);

#endif /* FOLIOSIM_GUEST_H */
