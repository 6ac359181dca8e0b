// SPDX-License-Identifier: MIT
/*
 * What /proc shows in each mode: /proc/kpagecount, pagemap's
 * PM_MMAP_EXCLUSIVE, numa_maps' mapmax and smaps' Pss/Private/Shared.
 * Legacy uses folio_precise_page_mapcount() per page (6.12
 * fs/proc/task_mmu.c smaps_account()); rfc uses the average page mapcount
 * and folio_maybe_mapped_shared() (patches 02-06/13).  Pss values are in
 * PSS_SHIFT (12) fixed point and computed by hand in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>
#include "fsim_test.h"

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD

#define PAGE 4096ull
#define PSS_PAGE (PAGE << FSIM_PSS_SHIFT)	/* 16777216: one page, unshared */
#define THP (512 * PAGE)			/* 2 MiB */

#define RFC FSIM_MODE_RFC
#define LEGACY FSIM_MODE_LEGACY

/* smaps of @n consecutive PTE entries of one mm starting at @page */
static struct fsim_smaps smaps_ptes(const struct fsim_folio *f, unsigned long page,
				    unsigned long n, bool dirty)
{
	struct fsim_smaps acc;
	unsigned long i;

	memset(&acc, 0, sizeof(acc));
	for (i = 0; i < n; i++)
		fsim_smaps_account(f, PTE, page + i, dirty, &acc);
	return acc;
}

static struct fsim_smaps smaps_pmd(const struct fsim_folio *f, unsigned long page,
				   bool dirty)
{
	struct fsim_smaps acc;

	memset(&acc, 0, sizeof(acc));
	fsim_smaps_account(f, PMD, page, dirty, &acc);
	return acc;
}

/* Compares every field, naming the first that differs. */
#define F(x) { #x, offsetof(struct fsim_smaps, x) }
static const struct { const char *name; size_t off; } smaps_fields[] = {
	F(resident), F(anonymous), F(anonymous_thp), F(shmem_thp), F(file_thp),
	F(private_clean), F(private_dirty), F(shared_clean), F(shared_dirty),
	F(pss), F(pss_anon), F(pss_file), F(pss_shmem), F(pss_dirty),
};
#undef F

static void assert_smaps(const struct fsim_smaps *got, const struct fsim_smaps *want,
			 enum fsim_mode mode, int line)
{
	size_t i;

	for (i = 0; i < sizeof(smaps_fields) / sizeof(smaps_fields[0]); i++) {
		uint64_t g, e;

		memcpy(&g, (const char *)got + smaps_fields[i].off, sizeof(g));
		memcpy(&e, (const char *)want + smaps_fields[i].off, sizeof(e));
		if (g != e)
			fail_msg("line %d (%s): smaps %s is %llu, expected %llu", line,
				 fsim_mode_name(mode), smaps_fields[i].name,
				 (unsigned long long)g, (unsigned long long)e);
	}
}
#define ASSERT_SMAPS(w, got, ...) do {					\
	const struct fsim_smaps want_ = __VA_ARGS__;			\
	const struct fsim_smaps got_ = (got);				\
	assert_smaps(&got_, &want_, (w)->mode, __LINE__);		\
} while (0)

/* A THP mapped by two mms (fork): every page has mapcount 2 in both
 * modes, so Pss is halved: (2 MiB << 12) / 2 = 2^32. */
static void body_thp_two_mms(struct fsim_test_world *w)
{
	struct fsim_folio *f = fsim_test_folio(w, 9, FSIM_KIND_ANON);

	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w->a, true), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w->b, w->a, PMD, 0, 512), 0);
	assert_int_equal(fsim_kpagecount(f, 0), 2);
	assert_int_equal(fsim_kpagecount(f, 300), 2);
	assert_false(fsim_pagemap_exclusive(f, 0));
	assert_false(fsim_pagemap_exclusive(f, 511));
	assert_int_equal(fsim_numa_mapmax(f, 0), 2);

	ASSERT_SMAPS(w, smaps_pmd(f, 0, true), {
		.resident = THP, .anonymous = THP, .anonymous_thp = THP,
		.shared_dirty = THP,
		.pss = 1ull << 32, .pss_anon = 1ull << 32, .pss_dirty = 1ull << 32,
	});

	/* The child exits: refcount 1, the shortcut says private. */
	assert_int_equal(fsim_folio_remove_rmap(f, w->b, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_refcount(f), 1);
	assert_int_equal(fsim_kpagecount(f, 300), 1);
	assert_true(fsim_pagemap_exclusive(f, 300));
	ASSERT_SMAPS(w, smaps_pmd(f, 0, false), {
		.resident = THP, .anonymous = THP, .anonymous_thp = THP,
		.private_clean = THP, .pss = 1ull << 33, .pss_anon = 1ull << 33,
	});
	assert_consistent(w->ctx);
}

/*
 * An order-3 folio: A maps pages 0..7, B 0..4, C 0..2 (fork).  Precise
 * mapcounts 3,3,3,2,2,1,1,1; total 16, average (16 + 4) >> 3 = 2.
 *
 * A's Pss, legacy: 3 * (PSS_PAGE / 3) + 2 * (PSS_PAGE / 2) + 3 * PSS_PAGE
 *                = 3 * 5592405 + 2 * 8388608 + 3 * 16777216 = 83886079
 *   (integer division per page: 16777216 / 3 = 5592405 r 1)
 * A's Pss, rfc:    8 * (PSS_PAGE / 2) = 67108864
 * C's Pss, legacy: 3 * 5592405 = 16777215; rfc: 3 * 8388608 = 25165824
 */
static void body_partially_shared(struct fsim_test_world *w)
{
	struct fsim_folio *f = fsim_test_folio(w, 3, FSIM_KIND_ANON);
	const bool rfc = w->mode == RFC;

	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w->a, true), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w->b, w->a, PTE, 0, 5), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w->c, w->a, PTE, 0, 3), 0);
	assert_int_equal(fsim_folio_total_mapped_pages(f), 16);
	assert_int_equal(fsim_folio_average_page_mapcount(f), 2);

	assert_int_equal(fsim_kpagecount(f, 0), rfc ? 2 : 3);
	assert_int_equal(fsim_kpagecount(f, 4), 2);
	assert_int_equal(fsim_kpagecount(f, 7), rfc ? 2 : 1);
	assert_int_equal(fsim_numa_mapmax(f, 0), rfc ? 2 : 3);
	assert_int_equal(fsim_numa_mapmax(f, 7), rfc ? 2 : 1);
	assert_false(fsim_pagemap_exclusive(f, 0));
	assert_false(fsim_pagemap_exclusive(f, 4));
	/* only legacy knows page 7 is mapped once */
	assert_int_equal(fsim_pagemap_exclusive(f, 7), !rfc);

	if (rfc)
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 8, false), {
			.resident = 8 * PAGE, .anonymous = 8 * PAGE,
			.shared_clean = 8 * PAGE,
			.pss = 67108864, .pss_anon = 67108864,
		});
	else
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 8, false), {
			.resident = 8 * PAGE, .anonymous = 8 * PAGE,
			.private_clean = 3 * PAGE, .shared_clean = 5 * PAGE,
			.pss = 83886079, .pss_anon = 83886079,
		});
	if (rfc)
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 3, true), {
			.resident = 3 * PAGE, .anonymous = 3 * PAGE,
			.shared_dirty = 3 * PAGE,
			.pss = 25165824, .pss_anon = 25165824, .pss_dirty = 25165824,
		});
	else
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 3, true), {
			.resident = 3 * PAGE, .anonymous = 3 * PAGE,
			.shared_dirty = 3 * PAGE,
			.pss = 16777215, .pss_anon = 16777215, .pss_dirty = 16777215,
		});
	assert_consistent(w->ctx);
}

/* refcount == 1: a single mapping; no mapcount needed: private, full. */
static void body_refcount_one(struct fsim_test_world *w)
{
	struct fsim_folio *f = fsim_test_folio(w, 0, FSIM_KIND_ANON);

	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w->a, true), 0);
	assert_int_equal(fsim_folio_refcount(f), 1);
	assert_int_equal(fsim_kpagecount(f, 0), 1);
	assert_true(fsim_pagemap_exclusive(f, 0));
	assert_int_equal(fsim_numa_mapmax(f, 0), 1);
	ASSERT_SMAPS(w, smaps_ptes(f, 0, 1, true), {
		.resident = PAGE, .anonymous = PAGE, .private_dirty = PAGE,
		.pss = PSS_PAGE, .pss_anon = PSS_PAGE, .pss_dirty = PSS_PAGE,
	});

	/* Pinned: refcount 1 + 1024, but still mapped once. */
	assert_int_equal(fsim_folio_pin(f, w->a, 1), 0);
	ASSERT_SMAPS(w, smaps_ptes(f, 0, 1, false), {
		.resident = PAGE, .anonymous = PAGE, .private_clean = PAGE,
		.pss = PSS_PAGE, .pss_anon = PSS_PAGE,
	});
	assert_int_equal(fsim_folio_unpin(f, 1), 0);

	/* Forked: mapcount 2, Pss halved, shared. */
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w->b, w->a, PTE, 0, 1), 0);
	assert_int_equal(fsim_kpagecount(f, 0), 2);
	assert_false(fsim_pagemap_exclusive(f, 0));
	ASSERT_SMAPS(w, smaps_ptes(f, 0, 1, false), {
		.resident = PAGE, .anonymous = PAGE, .shared_clean = PAGE,
		.pss = PSS_PAGE / 2, .pss_anon = PSS_PAGE / 2,
	});
	assert_consistent(w->ctx);
}

/* A shmem THP mapped by two PMDs: ShmemPmdMapped and Pss_Shmem. */
static void body_shmem_pmd(struct fsim_test_world *w)
{
	struct fsim_folio *f = fsim_test_folio(w, 9, FSIM_KIND_SHMEM);

	assert_int_equal(fsim_folio_add_file_rmap(f, w->a, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_add_file_rmap(f, w->b, PMD, 0, 512), 0);
	assert_int_equal(fsim_ctx_stat(w->ctx, FSIM_NR_SHMEM_PMDMAPPED), 512);
	assert_int_equal(fsim_ctx_stat(w->ctx, FSIM_NR_FILE_PMDMAPPED), 0);
	assert_int_equal(fsim_ctx_stat(w->ctx, FSIM_NR_FILE_MAPPED), 512);
	assert_int_equal(fsim_kpagecount(f, 9), 2);
	assert_false(fsim_pagemap_exclusive(f, 9));
	ASSERT_SMAPS(w, smaps_pmd(f, 0, true), {
		.resident = THP, .shmem_thp = THP, .shared_dirty = THP,
		.pss = 1ull << 32, .pss_shmem = 1ull << 32, .pss_dirty = 1ull << 32,
	});

	/* Mapped once: the page cache holds 512 references, no shortcut,
	 * but mapcount 1 gives the same: full and private. */
	assert_int_equal(fsim_folio_remove_rmap(f, w->b, PMD, 0, 512), 0);
	assert_int_equal(fsim_folio_refcount(f), 513);
	ASSERT_SMAPS(w, smaps_pmd(f, 0, false), {
		.resident = THP, .shmem_thp = THP, .private_clean = THP,
		.pss = 1ull << 33, .pss_shmem = 1ull << 33,
	});
	assert_consistent(w->ctx);
}

/*
 * A file folio of order 2: A maps pages 0..3, B pages 0..1.  Precise
 * mapcounts 2,2,1,1; total 6, average (6 + 2) >> 2 = 2.
 *   A's Pss, legacy: 2 * 8388608 + 2 * 16777216 = 50331648
 *   A's Pss, rfc:    4 * 8388608 = 33554432
 */
static void body_file(struct fsim_test_world *w)
{
	struct fsim_folio *f = fsim_test_folio(w, 2, FSIM_KIND_FILE);
	struct fsim_folio *thp = fsim_test_folio(w, 9, FSIM_KIND_FILE);
	const bool rfc = w->mode == RFC;

	assert_int_equal(fsim_folio_add_file_rmap(f, w->a, PTE, 0, 4), 0);
	assert_int_equal(fsim_folio_add_file_rmap(f, w->b, PTE, 0, 2), 0);
	assert_int_equal(fsim_ctx_stat(w->ctx, FSIM_NR_FILE_MAPPED), 4);
	assert_int_equal(fsim_kpagecount(f, 0), 2);
	assert_int_equal(fsim_kpagecount(f, 3), rfc ? 2 : 1);
	assert_int_equal(fsim_pagemap_exclusive(f, 3), !rfc);

	if (rfc)
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 4, false), {
			.resident = 4 * PAGE, .shared_clean = 4 * PAGE,
			.pss = 33554432, .pss_file = 33554432,
		});
	else
		ASSERT_SMAPS(w, smaps_ptes(f, 0, 4, false), {
			.resident = 4 * PAGE, .private_clean = 2 * PAGE,
			.shared_clean = 2 * PAGE,
			.pss = 50331648, .pss_file = 50331648,
		});

	assert_int_equal(fsim_folio_add_file_rmap(thp, w->c, PMD, 0, 512), 0);
	assert_int_equal(fsim_ctx_stat(w->ctx, FSIM_NR_FILE_PMDMAPPED), 512);
	ASSERT_SMAPS(w, smaps_pmd(thp, 0, false), {
		.resident = THP, .file_thp = THP, .private_clean = THP,
		.pss = 1ull << 33, .pss_file = 1ull << 33,
	});
	assert_consistent(w->ctx);
}

static void in_both_modes(void (*body)(struct fsim_test_world *w))
{
	enum fsim_mode mode;

	for (mode = LEGACY; mode <= RFC; mode++) {
		struct fsim_test_world w;

		fsim_test_world_init(&w, mode);
		body(&w);
		fsim_ctx_destroy(w.ctx);
	}
}

static void thp_mapped_by_two_mms(void **state)
{
	(void)state;
	in_both_modes(body_thp_two_mms);
}

static void partially_shared_folio(void **state)
{
	(void)state;
	in_both_modes(body_partially_shared);
}

static void refcount_one_shortcut(void **state)
{
	(void)state;
	in_both_modes(body_refcount_one);
}

static void shmem_pmd(void **state)
{
	(void)state;
	in_both_modes(body_shmem_pmd);
}

static void file_folio(void **state)
{
	(void)state;
	in_both_modes(body_file);
}

/* rfc: a PMD mapping half of an order-10 folio accounts the PMD's size,
 * not folio_size() (the model's fix of 06/13).  Average (1536 + 512) >>
 * 10 = 2, two mms: (2 MiB << 12) / 2 = 2^32, shared. */
static void rfc_pmd_of_larger_folio_uses_mapping_size(void **state)
{
	struct fsim_test_world w;
	struct fsim_folio *f;

	(void)state;
	fsim_test_world_init(&w, RFC);
	f = fsim_test_folio(&w, 10, FSIM_KIND_ANON);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.a, true), 0);
	assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, PMD, 512, 512), 0);
	assert_int_equal(fsim_kpagecount(f, 0), 2);
	ASSERT_SMAPS(&w, smaps_pmd(f, 512, false), {
		.resident = THP, .anonymous = THP, .anonymous_thp = THP,
		.shared_clean = THP, .pss = 1ull << 32, .pss_anon = 1ull << 32,
	});
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thp_mapped_by_two_mms),
		cmocka_unit_test(partially_shared_folio),
		cmocka_unit_test(refcount_one_shortcut),
		cmocka_unit_test(shmem_pmd),
		cmocka_unit_test(file_folio),
		cmocka_unit_test(rfc_pmd_of_larger_folio_uses_mapping_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
