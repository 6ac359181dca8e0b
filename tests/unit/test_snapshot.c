// SPDX-License-Identifier: MIT
/*
 * fsim_snapshot_*: an observation replayed into each mode.  The case is
 * the series' headline: a parent maps a THP by a PMD, its forked child
 * unmapped the first half.  6.12 reads the parent's first half as private
 * (kpagecount 1); the series averages the folio's mappings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/snapshot.h>

#define NR 512

/* The parent's PMD (region 0) and the child's PTEs of pages 256-511
 * (region 1); kpagecount as a 6.12 kernel shows it, plus @extra mappings
 * of page 0 by a process outside the snapshot. */
static struct fsim_snapshot *forked_thp(uint64_t extra)
{
	struct fsim_snapshot *s;
	uint64_t count[NR];
	size_t f, parent, child, i;

	for (i = 0; i < NR; i++)
		count[i] = i < 256 ? 1 : 2;
	count[0] += extra;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 9, FSIM_KIND_ANON, count, true, &f), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, NR, &parent), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 1, NR, &child), 0);
	for (i = 0; i < NR; i++)
		assert_int_equal(fsim_snapshot_map(s, parent, i, f, i, FSIM_LEVEL_PMD), 0);
	for (i = 256; i < NR; i++)
		assert_int_equal(fsim_snapshot_map(s, child, i, f, i, FSIM_LEVEL_PTE), 0);
	return s;
}

static void test_legacy_prediction(void **state)
{
	struct fsim_snapshot *s = forked_thp(0);
	struct fsim_snapshot_values v[2];
	struct fsim_snapshot_notes n;

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_LEGACY, v, &n), 0);
	assert_int_equal(v[0].kb.rss, 2048);
	assert_int_equal(v[0].kb.pss, 1536);	/* 256 pages alone, 256 halved */
	assert_int_equal(v[0].kb.private_total, 1024);
	assert_int_equal(v[0].kb.anon_huge, 2048);
	assert_int_equal(v[0].kpagecount_sum, 768);
	assert_int_equal(v[0].exclusive_pages, 256);
	assert_int_equal(v[1].kb.pss, 512);
	assert_int_equal(v[1].kb.private_total, 0);
	assert_int_equal(n.folios, 1);
	assert_int_equal(n.refused, 0);
	assert_int_equal(n.folios_shared_elsewhere, 0);
	fsim_snapshot_destroy(s);
}

static void test_rfc_prediction(void **state)
{
	struct fsim_snapshot *s = forked_thp(0);
	struct fsim_snapshot_values v[2];

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_RFC, v, NULL), 0);
	assert_int_equal(v[0].kb.rss, 2048);
	assert_int_equal(v[0].kb.private_total, 0);	/* two mms: all shared */
	assert_int_equal(v[0].exclusive_pages, 0);
	/* the average mapcount, (512 + 256) / 512 rounded to 2, for both:
	 * the two Pss no longer add up to the folio (1536 of 2048 kB) */
	assert_int_equal(v[0].kb.pss, 1024);
	assert_int_equal(v[1].kb.pss, 512);
	fsim_snapshot_destroy(s);
}

/* A third process outside the snapshot maps page 0: it is theirs too. */
static void test_mapped_elsewhere(void **state)
{
	struct fsim_snapshot *s = forked_thp(1);
	struct fsim_snapshot_values v[2];
	struct fsim_snapshot_notes n;

	(void)state;
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_LEGACY, v, &n), 0);
	assert_int_equal(n.folios_shared_elsewhere, 1);
	assert_int_equal(v[0].kpagecount_sum, 769);
	assert_int_equal(v[0].kb.private_total, 1020);	/* page 0 is shared now */
	fsim_snapshot_destroy(s);
}

static void test_bad_input(void **state)
{
	struct fsim_snapshot *s;
	size_t f, r;

	(void)state;
	assert_int_equal(fsim_snapshot_create(NULL, &s), 0);
	assert_int_equal(fsim_snapshot_add_folio(s, 2, FSIM_KIND_ANON, NULL, false, &f), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, 4, &r), 0);
	assert_int_equal(fsim_snapshot_add_region(s, 0, 0, &r), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 4, f, 0, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 0, f, 4, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 0, 0, f, 0, FSIM_LEVEL_PMD), -EINVAL);
	assert_int_equal(fsim_snapshot_map(s, 1, 0, f, 0, FSIM_LEVEL_PTE), -EINVAL);
	assert_int_equal(fsim_snapshot_add_folio(s, 99, FSIM_KIND_ANON, NULL, false, &f), -EINVAL);
	assert_int_equal(fsim_snapshot_predict(s, FSIM_MODE_RFC, NULL, NULL), -EINVAL);
	fsim_snapshot_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_prediction),
		cmocka_unit_test(test_rfc_prediction),
		cmocka_unit_test(test_mapped_elsewhere),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
