// SPDX-License-Identifier: MIT
/*
 * The keys of `expect` statements, defined once: their names, targets,
 * value types, whether they take a page index, and in which kernels they
 * exist.  The parser validates against this table, the model's runner maps
 * each row to its value (scenario_expect.c, by the row's id), and other
 * executors (kunit-gen, the guest runner) look keys up here.
 */
#include <string.h>

#include "internal.h"
#include "scenario_keys.h"

#define ROW(id, name, target, type, flags, meaning) \
	{ { name, FSIM_EXPECT_##target, FSIM_VALUE_##type, flags, meaning }, id }

static const struct key_def key_defs[] = {
	ROW(K_MAPCOUNT, "mapcount", FOLIO, UINT, 0, "folio_mapcount(): page-table entries mapping the folio"),
	ROW(K_TOTAL_MAPPED_PAGES, "total_mapped_pages", FOLIO, UINT, 0, "pages mapped, summed over all entries"),
	ROW(K_AVG_MAPCOUNT, "avg_mapcount", FOLIO, UINT, 0, "folio_average_page_mapcount()"),
	ROW(K_MAPPED, "mapped", FOLIO, BOOL, 0, "mapcount > 0"),
	ROW(K_MAYBE_SHARED, "maybe_shared", FOLIO, BOOL, 0, "folio_maybe_mapped_shared() (6.12: folio_likely_mapped_shared())"),
	ROW(K_PARTIALLY_MAPPED, "partially_mapped", FOLIO, BOOL, 0, "flagged partially mapped and queued for deferred split"),
	ROW(K_DEFERRED, "deferred", FOLIO, BOOL, 0, "on the deferred split queue"),
	ROW(K_PINCOUNT, "pincount", FOLIO, UINT, 0, "pins held"),
	ROW(K_REFCOUNT, "refcount", FOLIO, UINT, 0, "folio_ref_count()"),
	ROW(K_TRUE_MAPCOUNT, "true_mapcount", FOLIO, UINT, FSIM_KEY_INDEXED, "entries that really map page i (the oracle)"),
	ROW(K_KPAGECOUNT, "kpagecount", FOLIO, UINT, FSIM_KEY_INDEXED, "/proc/kpagecount of page i"),
	ROW(K_EXCLUSIVE, "exclusive", FOLIO, BOOL, FSIM_KEY_INDEXED, "pagemap bit 56 (PM_MMAP_EXCLUSIVE) of page i"),
	ROW(K_ANON_EXCLUSIVE, "anon_exclusive", FOLIO, BOOL, FSIM_KEY_INDEXED, "PageAnonExclusive of page i"),
	ROW(K_MAPMAX, "mapmax", FOLIO, UINT, FSIM_KEY_INDEXED, "numa_maps mapmax of an entry whose first page is i"),
	ROW(K_SLOT0, "slot0", FOLIO, SLOT, FSIM_KEY_MM_SLOTS, "MM-id slot 0: M:count or none"),
	ROW(K_SLOT1, "slot1", FOLIO, SLOT, FSIM_KEY_MM_SLOTS, "MM-id slot 1: M:count or none"),
	ROW(K_SHARED_BIT, "shared_bit", FOLIO, BOOL, FSIM_KEY_MM_SLOTS, "the raw maybe-mapped-shared bit of _mm_ids"),
	ROW(K_ENTIRE_MAPCOUNT, "entire_mapcount", FOLIO, UINT, FSIM_KEY_PAGE_MAPCOUNT, "folio_entire_mapcount()"),
	ROW(K_NR_PAGES_MAPPED, "nr_pages_mapped", FOLIO, UINT, FSIM_KEY_PAGE_MAPCOUNT, "_nr_pages_mapped & FOLIO_PAGES_MAPPED"),

	ROW(K_STAT_ANON_MAPPED, "anon_mapped", STATS, SINT, 0, "NR_ANON_MAPPED (pages)"),
	ROW(K_STAT_FILE_MAPPED, "file_mapped", STATS, SINT, 0, "NR_FILE_MAPPED (pages)"),
	ROW(K_STAT_ANON_THPS, "anon_thps", STATS, SINT, 0, "NR_ANON_THPS (pages)"),
	ROW(K_STAT_FILE_PMDMAPPED, "file_pmdmapped", STATS, SINT, 0, "NR_FILE_PMDMAPPED (pages)"),
	ROW(K_STAT_SHMEM_PMDMAPPED, "shmem_pmdmapped", STATS, SINT, 0, "NR_SHMEM_PMDMAPPED (pages)"),
	ROW(K_STAT_SHMEM, "shmem", STATS, SINT, 0, "NR_SHMEM (pages): shmem folios in a page cache"),

	ROW(K_THP_ORDER, "order", THP, UINT, FSIM_KEY_SELECTOR, "the folio order whose counters are compared (default: the PMD order)"),
	ROW(K_THP_NR_ANON, "nr_anon", THP, SINT, 0, "MTHP_STAT_NR_ANON since the scenario started"),
	ROW(K_THP_NR_ANON_PARTIALLY_MAPPED, "nr_anon_partially_mapped", THP, SINT, 0, "MTHP_STAT_NR_ANON_PARTIALLY_MAPPED since the start"),
	ROW(K_THP_SPLIT_DEFERRED, "split_deferred", THP, SINT, 0, "MTHP_STAT_SPLIT_DEFERRED events since the start"),

	ROW(K_VMSTAT_DEFERRED_SPLIT_PAGE, "thp_deferred_split_page", VMSTAT, SINT, 0, "vmstat thp_deferred_split_page since the start"),
	ROW(K_MEMINFO_ANON_PAGES_KB, "anon_pages_kb", MEMINFO, SINT, 0, "AnonPages of /proc/meminfo since the start (kB)"),
	ROW(K_MEMINFO_MAPPED_KB, "mapped_kb", MEMINFO, SINT, 0, "Mapped (NR_FILE_MAPPED) since the start (kB)"),
	ROW(K_MEMINFO_ANON_HUGE_PAGES_KB, "anon_huge_pages_kb", MEMINFO, SINT, 0, "AnonHugePages (NR_ANON_THPS) since the start (kB)"),
	ROW(K_MEMINFO_SHMEM_PMD_MAPPED_KB, "shmem_pmd_mapped_kb", MEMINFO, SINT, 0, "ShmemPmdMapped since the start (kB)"),
	ROW(K_MEMINFO_FILE_PMD_MAPPED_KB, "file_pmd_mapped_kb", MEMINFO, SINT, 0, "FilePmdMapped since the start (kB)"),
	ROW(K_MEMINFO_SHMEM_KB, "shmem_kb", MEMINFO, SINT, 0, "Shmem (NR_SHMEM: shmem and tmpfs pages, mapped or not) since the start (kB)"),

	ROW(K_REGION_RSS_KB, "rss_kb", REGION, UINT, 0, "smaps Rss of the region (kB)"),
	ROW(K_REGION_PSS_KB, "pss_kb", REGION, UINT, 0, "smaps Pss (kB)"),
	ROW(K_REGION_PRIVATE_KB, "private_kb", REGION, UINT, 0, "smaps Private_Clean + Private_Dirty (kB)"),
	ROW(K_REGION_SHARED_KB, "shared_kb", REGION, UINT, 0, "smaps Shared_Clean + Shared_Dirty (kB)"),
	ROW(K_REGION_ANON_HUGE_KB, "anon_huge_kb", REGION, UINT, 0, "smaps AnonHugePages (kB)"),
	ROW(K_REGION_MAPMAX, "mapmax", REGION, UINT, 0, "numa_maps mapmax of the region"),
	ROW(K_REGION_SHARED_HUGETLB_KB, "shared_hugetlb_kb", REGION, UINT, 0, "smaps Shared_Hugetlb (kB)"),
	ROW(K_REGION_PRIVATE_HUGETLB_KB, "private_hugetlb_kb", REGION, UINT, 0, "smaps Private_Hugetlb (kB)"),
	ROW(K_REGION_PSS_DIRTY_KB, "pss_dirty_kb", REGION, UINT, 0, "smaps Pss_Dirty (kB)"),
	ROW(K_REGION_PRIVATE_DIRTY_KB, "private_dirty_kb", REGION, UINT, 0, "smaps Private_Dirty (kB): what Redis sums as fork CoW"),
	ROW(K_REGION_ANONYMOUS_KB, "anonymous_kb", REGION, UINT, 0, "smaps Anonymous (kB)"),
	ROW(K_REGION_SHMEM_PMD_KB, "shmem_pmd_kb", REGION, UINT, 0, "smaps ShmemPmdMapped (kB)"),
	ROW(K_REGION_FILE_PMD_KB, "file_pmd_kb", REGION, UINT, 0, "smaps FilePmdMapped (kB)"),
	ROW(K_REGION_SWAP_KB, "swap_kb", REGION, UINT, 0, "smaps Swap (kB): pages MADV_PAGEOUT swapped out"),
	ROW(K_ROLLUP_FIELD, "swap_kb", ROLLUP, UINT, 0, "smaps_rollup Swap (kB)"),
	ROW(K_ROLLUP_FIELD, "rss_kb", ROLLUP, UINT, 0, "smaps_rollup Rss of the process (kB)"),
	ROW(K_ROLLUP_FIELD, "pss_kb", ROLLUP, UINT, 0, "smaps_rollup Pss (kB): one sum over every VMA, shifted once"),
	ROW(K_ROLLUP_FIELD, "pss_dirty_kb", ROLLUP, UINT, 0, "smaps_rollup Pss_Dirty (kB)"),
	ROW(K_ROLLUP_FIELD, "pss_anon_kb", ROLLUP, UINT, 0, "smaps_rollup Pss_Anon (kB; smaps_rollup only)"),
	ROW(K_ROLLUP_FIELD, "pss_file_kb", ROLLUP, UINT, 0, "smaps_rollup Pss_File (kB; smaps_rollup only)"),
	ROW(K_ROLLUP_FIELD, "pss_shmem_kb", ROLLUP, UINT, 0, "smaps_rollup Pss_Shmem (kB; smaps_rollup only)"),
	ROW(K_ROLLUP_FIELD, "private_kb", ROLLUP, UINT, 0, "smaps_rollup Private_Clean + Private_Dirty (kB): psutil's USS"),
	ROW(K_ROLLUP_FIELD, "shared_kb", ROLLUP, UINT, 0, "smaps_rollup Shared_Clean + Shared_Dirty (kB)"),
	ROW(K_ROLLUP_FIELD, "private_dirty_kb", ROLLUP, UINT, 0, "smaps_rollup Private_Dirty (kB)"),
	ROW(K_ROLLUP_FIELD, "anonymous_kb", ROLLUP, UINT, 0, "smaps_rollup Anonymous (kB)"),
	ROW(K_ROLLUP_FIELD, "anon_huge_kb", ROLLUP, UINT, 0, "smaps_rollup AnonHugePages (kB)"),
	ROW(K_ROLLUP_FIELD, "shmem_pmd_kb", ROLLUP, UINT, 0, "smaps_rollup ShmemPmdMapped (kB)"),
	ROW(K_ROLLUP_FIELD, "file_pmd_kb", ROLLUP, UINT, 0, "smaps_rollup FilePmdMapped (kB)"),
	ROW(K_ROLLUP_FIELD, "shared_hugetlb_kb", ROLLUP, UINT, 0, "smaps_rollup Shared_Hugetlb (kB)"),
	ROW(K_ROLLUP_FIELD, "private_hugetlb_kb", ROLLUP, UINT, 0, "smaps_rollup Private_Hugetlb (kB)"),
	ROW(K_REGION_KPAGECOUNT, "kpagecount", REGION, UINT, FSIM_KEY_INDEXED, "/proc/kpagecount of the page at byte offset OFF"),
	ROW(K_REGION_EXCLUSIVE, "exclusive", REGION, BOOL, FSIM_KEY_INDEXED, "pagemap bit 56 of the page at OFF"),
	ROW(K_REGION_ORDER, "order", REGION, UINT, FSIM_KEY_INDEXED, "order of the folio holding the page at OFF (or none)"),
};

#define NR_KEYS (sizeof(key_defs) / sizeof(key_defs[0]))

size_t fsim_expect_key_count(void)
{
	return NR_KEYS;
}

const struct fsim_expect_key *fsim_expect_key_at(size_t i)
{
	return i < NR_KEYS ? &key_defs[i].key : NULL;
}

const struct key_def *key_def_find(enum fsim_expect_target target, const char *name)
{
	size_t i;

	for (i = 0; name && i < NR_KEYS; i++)
		if (key_defs[i].key.target == target && !strcmp(key_defs[i].key.name, name))
			return &key_defs[i];
	return NULL;
}

const struct fsim_expect_key *fsim_expect_key_find(enum fsim_expect_target target,
						   const char *name)
{
	const struct key_def *d = key_def_find(target, name);

	return d ? &d->key : NULL;
}

bool fsim_expect_key_in_mode(const struct fsim_expect_key *key, enum fsim_mode mode)
{
	if (!key || (unsigned int)mode >= FSIM_NR_MODES)
		return false;
	if ((key->flags & FSIM_KEY_MM_SLOTS) && !fsim_mode_has(mode, FSIM_HAS_MM_SLOTS))
		return false;
	if ((key->flags & FSIM_KEY_PAGE_MAPCOUNT) &&
	    !fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT))
		return false;
	return true;
}

const char *fsim_expect_target_name(enum fsim_expect_target target)
{
	static const char *const names[FSIM_EXPECT_NR_TARGETS] = {
		"folio", "stats", "thp", "vmstat", "meminfo", "region", "rollup" };

	return (unsigned int)target < FSIM_EXPECT_NR_TARGETS ? names[target] : "?";
}
