/* SPDX-License-Identifier: MIT */
/*
 * What the two guest programs share: the scenario runner (foliosim-guest.c)
 * and the differential fuzzer (gfuzz.c).  Both drive worker processes that
 * obey one-line commands over a pair of FIFOs:
 *
 *   mmap NAME SIZE ORDER SHMEM GUARD   (GUARD 1: PROT_NONE guards around it)
 *   touch|read|munmap|dontneed NAME OFF LEN
 *   mremap SRC OFF LEN DST KEEP        (see worker_mremap())
 *   fork CHILD | ping | exit
 *
 * and answer "ok [value]" or "err ERRNO".
 */
#ifndef FOLIOSIM_GUEST_H
#define FOLIOSIM_GUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "foliosim/foliosim.h"

#define MAX_REGIONS 16
#define PAGE 4096ul
#define PMD_BYTES (PAGE << 9)
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* The FIFO paths of worker @proc under @dir (256 bytes each). */
void fifo_names(const char *dir, const char *proc, char *cmd, char *rsp);
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
