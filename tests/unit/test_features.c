// SPDX-License-Identifier: MIT
/*
 * fsim_mode_has(): each kernel fact a caller may ask for agrees with what
 * the model of that kernel does, in every mode; unknown modes and
 * features answer false.
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

/* The shared fixture and one anon folio of @order. */
static struct fsim_folio *world_init(struct fsim_test_world *w, enum fsim_mode mode,
				     unsigned int order)
{
	fsim_test_world_init(w, mode);
	return fsim_test_folio(w, order, FSIM_KIND_ANON);
}

/* Per-page mapcounts: the CONFIG_PAGE_MAPCOUNT counters exist, and a
 * folio whose pages 0..255 lost both of their two mappings is seen
 * partially mapped (the average, 1, hides it). */
static void page_mapcount(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;
		const bool has = fsim_mode_has(mode, FSIM_HAS_PAGE_MAPCOUNT);

		f = world_init(&w, mode, 9);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, FSIM_LEVEL_PTE, 0, 512, true), 0);
		assert_int_equal(fsim_folio_try_dup_anon_rmap(f, w.b, w.a, FSIM_LEVEL_PTE, 0, 512), 0);
		assert_int_equal(fsim_folio_nr_pages_mapped(f) >= 0, has);
		assert_int_equal(fsim_folio_remove_rmap(f, w.a, FSIM_LEVEL_PTE, 0, 256), 0);
		assert_int_equal(fsim_folio_remove_rmap(f, w.b, FSIM_LEVEL_PTE, 0, 256), 0);
		assert_int_equal(fsim_folio_partially_mapped(f), has);
		/* kpagecount of page 256 (mapped twice) and page 0 (by none):
		 * the average is 1 for both */
		assert_int_equal(fsim_kpagecount(f, 256) == 2 && fsim_kpagecount(f, 0) == 0,
				 fsim_mode_has(mode, FSIM_HAS_PRECISE_KPAGECOUNT));
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

/* MM owner slots: readable for a large folio; COW reuse of PTE-mapped
 * THP (prep/0017) decides exclusivity by them, so it needs them. */
static void mm_slots(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;
		struct fsim_slot s[2];
		bool shared;

		f = world_init(&w, mode, 4);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, FSIM_LEVEL_PTE, 0, 16, true), 0);
		assert_int_equal(fsim_folio_slots(f, s, &shared) == 0,
				 fsim_mode_has(mode, FSIM_HAS_MM_SLOTS));
		if (fsim_mode_has(mode, FSIM_HAS_COW_REUSE_LARGE_ANON))
			assert_true(fsim_mode_has(mode, FSIM_HAS_MM_SLOTS));
		fsim_ctx_destroy(w.ctx);
	}
}

/* Arbitrary mappings: one PMD of an order-10 folio (13/13); a kernel
 * without them refuses the range. */
static void arbitrary_mappings(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_test_world w;
		struct fsim_folio *f;
		const int err_want = fsim_mode_has(mode, FSIM_HAS_ARBITRARY_MAPPINGS) ? 0 : -EINVAL;

		f = world_init(&w, mode, 10);
		assert_int_equal(fsim_folio_add_anon_rmap(f, w.a, FSIM_LEVEL_PMD, 512, 512, true),
				 err_want);
		assert_consistent(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

/* The detect part can be switched on exactly where it applies. */
static void detect_part(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct fsim_ctx *ctx;
		const bool has = fsim_mode_has(mode, FSIM_HAS_DETECT_PART);

		assert_int_equal(fsim_ctx_create(mode, NULL, &ctx), 0);
		assert_int_equal(fsim_ctx_set_detect(ctx, true), has ? 0 : -EOPNOTSUPP);
		assert_int_equal(fsim_ctx_detect(ctx), has);
		fsim_ctx_destroy(ctx);
	}
}

/* Every mode differs from every other in some fact (else two back ends
 * model one kernel), and the names are distinct. */
static void facts_tell_modes_apart(void **state)
{
	enum fsim_mode m1, m2;
	unsigned int f, g;

	(void)state;
	for_each_mode(m1) {
		for_each_mode(m2) {
			bool differ = false;

			for (f = 0; f < FSIM_NR_FEATURES; f++)
				differ |= fsim_mode_has(m1, (enum fsim_feature)f) !=
					  fsim_mode_has(m2, (enum fsim_feature)f);
			assert_int_equal(differ, m1 != m2);
		}
	}
	for (f = 0; f < FSIM_NR_FEATURES; f++) {
		assert_string_not_equal(fsim_feature_name((enum fsim_feature)f), "?");
		for (g = f + 1; g < FSIM_NR_FEATURES; g++)
			assert_string_not_equal(fsim_feature_name((enum fsim_feature)f),
						fsim_feature_name((enum fsim_feature)g));
	}
}

static void unknown_mode_or_feature(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode)
		assert_false(fsim_mode_has(mode, FSIM_NR_FEATURES));
	assert_false(fsim_mode_has(FSIM_NR_MODES, FSIM_HAS_MM_SLOTS));
	assert_false(fsim_mode_has((enum fsim_mode)-1, FSIM_HAS_PAGE_MAPCOUNT));
	assert_string_equal(fsim_feature_name(FSIM_NR_FEATURES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_mapcount),
		cmocka_unit_test(mm_slots),
		cmocka_unit_test(arbitrary_mappings),
		cmocka_unit_test(detect_part),
		cmocka_unit_test(facts_tell_modes_apart),
		cmocka_unit_test(unknown_mode_or_feature),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
