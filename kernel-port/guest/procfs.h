/* SPDX-License-Identifier: MIT */
/*
 * The /proc observation layer of the guest programs (the scenario runner
 * and the differential fuzzer): the bits of pagemap and kpageflags by name,
 * one smaps parser, one numa_maps "mapmax" reader, whole-file reads.
 * Documentation/admin-guide/mm/pagemap.rst names every bit used here.
 */
#ifndef FOLIOSIM_GUEST_PROCFS_H
#define FOLIOSIM_GUEST_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* /proc/PID/pagemap */
#define PM_PFN_MASK		((1ull << 55) - 1)
#define PM_MMAP_EXCLUSIVE_BIT	56
#define PM_SWAP_BIT		62
#define PM_PRESENT_BIT		63

/* /proc/kpageflags (include/uapi/linux/kernel-page-flags.h) */
#define KPF_ANON		12
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_THP			22
#define KPF_ZERO_PAGE		24

static inline bool pm_bit(uint64_t pme, unsigned int bit)
{
	return (pme >> bit) & 1;
}

static inline bool pm_present(uint64_t pme)
{
	return pm_bit(pme, PM_PRESENT_BIT);
}

static inline uint64_t pm_pfn(uint64_t pme)
{
	return pme & PM_PFN_MASK;
}

/* Bit 56 of a present entry: "exclusively mapped" (PM_MMAP_EXCLUSIVE). */
static inline bool pm_exclusive(uint64_t pme)
{
	return pm_present(pme) && pm_bit(pme, PM_MMAP_EXCLUSIVE_BIT);
}

static inline bool kpf(uint64_t flags, unsigned int bit)
{
	return (flags >> bit) & 1;
}

/* One VMA of /proc/PID/smaps, its fields in kB as printed. */
struct smaps_vma {
	uintptr_t start, end;
	long long rss, pss, private_kb, shared_kb, anon_huge;
	long long shared_hugetlb, private_hugetlb;
	long long pss_dirty, private_dirty, anonymous;
	long long pss_anon, pss_file, pss_shmem, shmem_pmd, file_pmd, swap;
};

/* Reads the whole file at @path into *@buf (grown as needed, NUL ended);
 * false if it cannot be read. */
bool read_whole_file(const char *path, char **buf, size_t *cap);
/* Calls @fn for every VMA of the smaps text @text (cut into lines in
 * place). */
void smaps_parse(char *text, void (*fn)(void *arg, const struct smaps_vma *vma),
		 void *arg);
/* The smaps fields of @pid summed over its VMAs inside [@start, @end). */
void smaps_sum(pid_t pid, uintptr_t start, uintptr_t end, struct smaps_vma *out);
/* numa_maps "mapmax" over @pid's VMAs inside [@start, @end): 1 when pages
 * are mapped but the kernel prints none (it does only above 1), 0 when
 * none is mapped. */
long long numa_maps_mapmax(pid_t pid, uintptr_t start, uintptr_t end);

/* The THP knobs for a run: every size in @anon_orders (bit o: order o,
 * 2..9) on madvise (the PMD size inherits it), the others never, shmem the
 * same with @shmem_orders (advise); the huge zeropage on; nothing splits
 * underused THPs or collapses behind the program's back (khugepaged idle,
 * max_ptes_none 0, shrink_underused 0). */
void thp_set_knobs(unsigned int anon_orders, unsigned int shmem_orders);

#endif /* FOLIOSIM_GUEST_PROCFS_H */
