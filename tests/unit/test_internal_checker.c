// SPDX-License-Identifier: MIT
/*
 * The checker must be able to fail.  Each test builds a valid state,
 * corrupts exactly one field through internal.h, asserts that
 * fsim_check_folio()/fsim_check_ctx() return -EFAULT naming the expected
 * invariant (names from check.c), restores the field and asserts the
 * check passes again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "fsim_test.h"

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD

struct world {
	struct fsim_ctx *ctx;
	struct fsim_mm *a, *b, *c;
	struct fsim_folio *f;
};

/* An order-9 anon folio: A maps a PMD (new_anon), B PTEs [0,16). */
static void world_init(struct world *w, enum fsim_mode mode)
{
	assert_int_equal(fsim_ctx_create(mode, NULL, &w->ctx), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->a), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->b), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->c), 0);
	assert_int_equal(fsim_folio_create(w->ctx, 9, FSIM_KIND_ANON, &w->f), 0);
	assert_int_equal(fsim_folio_add_new_anon_rmap(w->f, w->a, true), 0);
	assert_int_equal(fsim_folio_add_anon_rmap(w->f, w->b, PTE, 0, 16, false), 0);
	assert_int_equal(fsim_check_ctx(w->ctx, NULL), 0);
}

static void expect_folio_violation(const struct fsim_folio *f, const char *name)
{
	struct fsim_violation v;

	memset(&v, 0, sizeof(v));
	assert_int_equal(fsim_check_folio(f, &v), -EFAULT);
	assert_string_equal(v.invariant, name);
	assert_true(v.detail[0] != '\0');
	/* fsim_check_ctx() reports the folio's violation too */
	memset(&v, 0, sizeof(v));
	assert_int_equal(fsim_check_ctx(f->ctx, &v), -EFAULT);
	assert_string_equal(v.invariant, name);
}

static void expect_ctx_violation(const struct fsim_ctx *ctx, const char *name)
{
	struct fsim_violation v;

	memset(&v, 0, sizeof(v));
	assert_int_equal(fsim_check_ctx(ctx, &v), -EFAULT);
	assert_string_equal(v.invariant, name);
}

static void expect_clean(const struct fsim_ctx *ctx)
{
	struct fsim_violation v = { { 0 }, { 0 } };

	if (fsim_check_ctx(ctx, &v))
		fail_msg("after restoring: %s: %s", v.invariant, v.detail);
}

static void large_mapcount(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct world w;

		world_init(&w, mode);
		atomic_add(1, &w.f->large_mapcount);
		expect_folio_violation(w.f, "mapcount_equals_entries");
		atomic_sub(1, &w.f->large_mapcount);
		expect_clean(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

static void total_mapped_pages(void **state)
{
	struct world w;
	uint64_t saved;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	saved = atomic_long_read(&w.f->total_mapped_pages);
	atomic_long_set(&w.f->total_mapped_pages, saved + 1);
	expect_folio_violation(w.f, "total_mapped_pages_equals_true_sum");
	atomic_long_set(&w.f->total_mapped_pages, saved - 512);
	expect_folio_violation(w.f, "total_mapped_pages_equals_true_sum");
	atomic_long_set(&w.f->total_mapped_pages, saved);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Slot 0 (A) says 2 entries; A has only its PMD. */
static void slot_count_above_true_entries(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(folio_mm_id(w.f, 0), fsim_mm_id(w.a));
	assert_int_equal(w.f->mm_id_mapcount[0], 0);
	w.f->mm_id_mapcount[0] = 1;
	expect_folio_violation(w.f, "slot_count_within_true_entries");
	w.f->mm_id_mapcount[0] = 0;
	/* Below the true count is allowed (untracked history). */
	assert_int_equal(w.f->mm_id_mapcount[1], 15);
	w.f->mm_id_mapcount[1] = 3;
	expect_clean(w.ctx);
	w.f->mm_id_mapcount[1] = 15;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void free_slot_not_minus_one(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.b, PTE, 0, 16), 0);
	assert_int_equal(folio_mm_id(w.f, 1), 0);
	assert_int_equal(w.f->mm_id_mapcount[1], -1);
	w.f->mm_id_mapcount[1] = 0;
	expect_folio_violation(w.f, "free_slot_holds_minus_one");
	w.f->mm_id_mapcount[1] = -2;
	expect_folio_violation(w.f, "free_slot_holds_minus_one");
	w.f->mm_id_mapcount[1] = -1;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void shared_bit_on_unmapped_folio(void **state)
{
	struct world w;
	const uint64_t bit = 1ull << fsim_mm_ids_shared_bitnum(&FSIM_ARCH_X86_64);

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.b, PTE, 0, 16), 0);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.a, PMD, 0, 512), 0);
	assert_int_equal(word_read(&w.f->mm_ids), 0);
	word_write(&w.f->mm_ids, bit);
	expect_folio_violation(w.f, "shared_bit_clear_when_unmapped");
	word_write(&w.f->mm_ids, 0);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Two mms map the folio: the shared bit must be set. */
static void shared_bit_missing_with_two_mms(void **state)
{
	struct world w;
	const uint64_t bit = 1ull << 63;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_true(word_read(&w.f->mm_ids) & bit);
	word_write(&w.f->mm_ids, word_read(&w.f->mm_ids) & ~bit);
	expect_folio_violation(w.f, "maybe_shared_when_two_mms_map");
	word_write(&w.f->mm_ids, word_read(&w.f->mm_ids) | bit);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void lock_bit_left_set(void **state)
{
	struct world w;
	const uint64_t lock = 1ull << 31;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	word_write(&w.f->mm_ids, word_read(&w.f->mm_ids) | lock);
	expect_folio_violation(w.f, "lock_bit_released");
	word_write(&w.f->mm_ids, word_read(&w.f->mm_ids) & ~lock);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void same_mm_in_both_slots(void **state)
{
	struct world w;
	uint64_t saved;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	saved = word_read(&w.f->mm_ids);
	/* slot 1 := A; A maps 1 entry, slot 1 records 16: lower it. */
	word_write(&w.f->mm_ids, (saved & ~(0x7fffffffull << 32)) |
		   (uint64_t)fsim_mm_id(w.a) << 32);
	w.f->mm_id_mapcount[1] = 0;
	expect_folio_violation(w.f, "slots_distinct");
	word_write(&w.f->mm_ids, saved);
	w.f->mm_id_mapcount[1] = 15;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void legacy_page_mapcount(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_LEGACY);
	assert_int_equal(atomic_read(&w.f->page_mapcount[5]), 0);
	atomic_set(&w.f->page_mapcount[5], 1);
	expect_folio_violation(w.f, "legacy_page_mapcount_equals_ptes");
	atomic_set(&w.f->page_mapcount[5], 0);
	atomic_set(&w.f->page_mapcount[100], 0);	/* unmapped page looks mapped */
	expect_folio_violation(w.f, "legacy_page_mapcount_equals_ptes");
	atomic_set(&w.f->page_mapcount[100], -1);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The state digest reads the page mapcounts through page_hash: a change
 * of a page's count that page_hash did not follow is the checker's. */
static void page_hash_out_of_step(void **state)
{
	struct world w;
	uint64_t h;

	(void)state;
	world_init(&w, FSIM_MODE_LEGACY);
	h = atomic_load(&w.f->page_hash);
	assert_int_not_equal(h, 0);	/* B maps 16 pages */
	atomic_store(&w.f->page_hash, h + 2);
	expect_folio_violation(w.f, "pm_page_hash_matches");
	atomic_store(&w.f->page_hash, h);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* legacy_entire_mapcount_equals_pmds was dropped as a check that cannot
 * fail (pagemapcount.c says why): a corrupted entire_mapcount is caught by
 * the total, which legacy derives from it. */
static void legacy_entire_mapcount(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_LEGACY);
	atomic_add(1, &w.f->entire_mapcount);
	/* total_mapped_pages is derived from it in legacy, and checked first */
	expect_folio_violation(w.f, "total_mapped_pages_equals_true_sum");
	atomic_sub(1, &w.f->entire_mapcount);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The raw _nr_pages_mapped: ENTIRELY_MAPPED (0x800000) + 16 PTE-mapped
 * pages; fsim_folio_nr_pages_mapped() masks ENTIRELY_MAPPED off like the
 * kernel's folio_nr_pages_mapped(). */
static void legacy_nr_pages_mapped(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_LEGACY);
	assert_int_equal(ENTIRELY_MAPPED, 0x800000);
	assert_int_equal(atomic_read(&w.f->nr_pages_mapped), ENTIRELY_MAPPED + 16);
	assert_int_equal(fsim_folio_nr_pages_mapped(w.f), 16);
	atomic_sub(ENTIRELY_MAPPED, &w.f->nr_pages_mapped);
	expect_folio_violation(w.f, "legacy_nr_pages_mapped");
	atomic_add(ENTIRELY_MAPPED + 1, &w.f->nr_pages_mapped);
	expect_folio_violation(w.f, "legacy_nr_pages_mapped");
	atomic_sub(1, &w.f->nr_pages_mapped);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

static void refcount(void **state)
{
	enum fsim_mode mode;

	(void)state;
	for_each_mode(mode) {
		struct world w;

		world_init(&w, mode);
		atomic_fetch_add(&w.f->refcount, 1);
		expect_folio_violation(w.f, "refcount_matches_mappings");
		atomic_fetch_sub(&w.f->refcount, 1);
		expect_clean(w.ctx);
		fsim_ctx_destroy(w.ctx);
	}
}

static void partially_mapped_without_queue(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	atomic_store(&w.f->partially_mapped, true);
	expect_folio_violation(w.f, "partially_mapped_implies_queued");
	atomic_store(&w.f->partially_mapped, false);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The oracle itself: a count-0 segment is malformed. */
static void oracle_malformed(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_true(w.f->oracle.n > 0);
	oracle_seg_at(&w.f->oracle, 0)->count--;
	w.f->oracle.entries--;
	w.f->oracle.pages -= oracle_seg_at(&w.f->oracle, 0)->end - oracle_seg_at(&w.f->oracle, 0)->start;
	expect_folio_violation(w.f, "oracle_well_formed");
	oracle_seg_at(&w.f->oracle, 0)->count++;
	w.f->oracle.entries++;
	w.f->oracle.pages += oracle_seg_at(&w.f->oracle, 0)->end - oracle_seg_at(&w.f->oracle, 0)->start;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* An unmapped folio with a slot count left behind: the checker names the
 * slot, and fsim_folio_free() (free_tail_page_prepare()'s "nonzero mm
 * mapcount 0") refuses with -EFAULT and frees nothing. */
static void free_time_checks_of_unmapped_folio(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.b, PTE, 0, 16), 0);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.a, PMD, 0, 512), 0);
	w.f->mm_id_mapcount[0] = 0;	/* would be "nonzero mm mapcount 0" */
	expect_folio_violation(w.f, "free_slot_holds_minus_one");
	assert_int_equal(fsim_folio_free(w.f), -EFAULT);	/* and not freed */
	w.f->mm_id_mapcount[0] = -1;
	expect_clean(w.ctx);
	assert_int_equal(fsim_folio_free(w.f), 0);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Freeing runs free_page_is_bad()'s checks: a large mapcount left at 0
 * instead of -1 on an unmapped folio is refused with free_time_checks. */
static void free_time_checks_of_large_mapcount(void **state)
{
	struct fsim_violation v;
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.b, PTE, 0, 16), 0);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.a, PMD, 0, 512), 0);
	atomic_set(&w.f->large_mapcount, 0);
	memset(&v, 0, sizeof(v));
	assert_int_equal(folio_free_checks(w.f, &v), -EFAULT);
	assert_string_equal(v.invariant, "free_time_checks");
	assert_int_equal(fsim_folio_free(w.f), -EFAULT);	/* and not freed */
	atomic_set(&w.f->large_mapcount, -1);
	assert_int_equal(folio_free_checks(w.f, NULL), 0);
	assert_int_equal(fsim_folio_free(w.f), 0);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The oracle's running totals against its segments. */
static void oracle_totals_out_of_step(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	w.f->oracle.entries++;
	expect_folio_violation(w.f, "oracle_totals");
	w.f->oracle.entries--;
	w.f->oracle.pages += 3;
	expect_folio_violation(w.f, "oracle_totals");
	w.f->oracle.pages -= 3;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* A 32-bit _mm_ids word is an unsigned long: nothing above bit 31. */
static void mm_ids_above_32_bits(void **state)
{
	struct fsim_arch arch = FSIM_ARCH_X86_64;
	struct world w;
	uint64_t word;

	(void)state;
	arch.bits = 32;
	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, &arch, &w.ctx), 0);
	assert_int_equal(fsim_mm_create(w.ctx, 0, &w.a), 0);
	assert_int_equal(fsim_folio_create(w.ctx, 9, FSIM_KIND_ANON, &w.f), 0);
	assert_int_equal(fsim_folio_add_new_anon_rmap(w.f, w.a, true), 0);
	expect_clean(w.ctx);
	word = atomic_load(&w.f->mm_ids);
	atomic_store(&w.f->mm_ids, word | (1ull << 40));
	expect_folio_violation(w.f, "mm_ids_fits_32bit");
	atomic_store(&w.f->mm_ids, word);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* rfc: with _total_mapped_pages deflated by 512, removing one of B's PTEs
 * leaves total 15 < 512 and the removal flags the folio, although A's PMD
 * still maps every page: partially_mapped_flag_justified names it. */
static void removal_flags_a_folio_mapped_entirely(void **state)
{
	struct world w;
	uint64_t saved;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	saved = atomic_long_read(&w.f->total_mapped_pages);
	atomic_long_set(&w.f->total_mapped_pages, saved - 512);
	assert_int_equal(fsim_folio_remove_rmap(w.f, w.b, PTE, 0, 1), 0);
	assert_true(fsim_folio_partially_mapped(w.f));
	atomic_long_set(&w.f->total_mapped_pages, saved - 1);
	expect_folio_violation(w.f, "partially_mapped_flag_justified");
	fsim_ctx_destroy(w.ctx);
}

/* ---- transition invariants (checked by each removal) ----------------- */

/* rfc: with _total_mapped_pages inflated, a removal leaving one mm mapping
 * 15 of 16 pages once each does not flag the folio: the removal records
 * rfc_exclusive_partial_mapping_detected, reported by the next check even
 * after the field is restored. */
static void rfc_removal_that_misses_a_partial_mapping(void **state)
{
	struct world w;
	struct fsim_folio *f;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	assert_int_equal(fsim_folio_create(w.ctx, 4, FSIM_KIND_ANON, &f), 0);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.c, true), 0);
	atomic_long_set(&f->total_mapped_pages, 32);
	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PTE, 3, 1), 0);
	assert_false(fsim_folio_partially_mapped(f));
	atomic_long_set(&f->total_mapped_pages, 15);
	expect_folio_violation(f, "rfc_exclusive_partial_mapping_detected");
	f->transition_broken = false;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* legacy: with ENTIRELY_MAPPED wrongly set, a PTE removal that unmaps a
 * page of a PTE-mapped folio neither accounts nor flags it. */
static void legacy_removal_that_misses_a_partial_mapping(void **state)
{
	struct world w;
	struct fsim_folio *f;

	(void)state;
	world_init(&w, FSIM_MODE_LEGACY);
	assert_int_equal(fsim_folio_create(w.ctx, 4, FSIM_KIND_ANON, &f), 0);
	assert_int_equal(fsim_folio_add_new_anon_rmap(f, w.c, true), 0);
	atomic_add(ENTIRELY_MAPPED, &f->nr_pages_mapped);
	assert_int_equal(fsim_folio_remove_rmap(f, w.c, PTE, 3, 1), 0);
	assert_false(fsim_folio_partially_mapped(f));
	atomic_sub(ENTIRELY_MAPPED, &f->nr_pages_mapped);
	expect_folio_violation(f, "legacy_partial_mapping_detected");
	f->transition_broken = false;
	/* the page was not subtracted from NR_ANON_MAPPED either */
	expect_ctx_violation(w.ctx, "stats_match_oracle");
	ctx_mod_stat(w.ctx, FSIM_NR_ANON_MAPPED, -1);
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* ---- context-level invariants --------------------------------------- */

static void node_stat(void **state)
{
	enum fsim_mode mode;
	int s;

	(void)state;
	for_each_mode(mode) {
		for (s = 0; s < FSIM_NR_STATS; s++) {
			struct world w;

			world_init(&w, mode);
			ctx_mod_stat(w.ctx, (enum fsim_stat)s, 1);
			assert_int_equal(fsim_check_folio(w.f, NULL), 0);
			expect_ctx_violation(w.ctx, "stats_match_oracle");
			ctx_mod_stat(w.ctx, (enum fsim_stat)s, -1);
			expect_clean(w.ctx);
			fsim_ctx_destroy(w.ctx);
		}
	}
}

static void thp_counters_and_queue(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, FSIM_MODE_RFC);
	ctx_mod_thp(w.ctx, 9, FSIM_THP_NR_ANON, 1);
	expect_ctx_violation(w.ctx, "thp_nr_anon_matches_folios");
	ctx_mod_thp(w.ctx, 9, FSIM_THP_NR_ANON, -1);
	ctx_mod_thp(w.ctx, 9, FSIM_THP_NR_ANON_PARTIALLY_MAPPED, 1);
	expect_ctx_violation(w.ctx, "thp_partially_mapped_matches_folios");
	ctx_mod_thp(w.ctx, 9, FSIM_THP_NR_ANON_PARTIALLY_MAPPED, -1);
	w.ctx->deferred_len++;
	expect_ctx_violation(w.ctx, "deferred_queue_length");
	w.ctx->deferred_len--;
	expect_clean(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(large_mapcount),
		cmocka_unit_test(total_mapped_pages),
		cmocka_unit_test(slot_count_above_true_entries),
		cmocka_unit_test(free_slot_not_minus_one),
		cmocka_unit_test(shared_bit_on_unmapped_folio),
		cmocka_unit_test(shared_bit_missing_with_two_mms),
		cmocka_unit_test(lock_bit_left_set),
		cmocka_unit_test(same_mm_in_both_slots),
		cmocka_unit_test(legacy_page_mapcount),
		cmocka_unit_test(page_hash_out_of_step),
		cmocka_unit_test(legacy_entire_mapcount),
		cmocka_unit_test(legacy_nr_pages_mapped),
		cmocka_unit_test(refcount),
		cmocka_unit_test(partially_mapped_without_queue),
		cmocka_unit_test(oracle_malformed),
		cmocka_unit_test(free_time_checks_of_unmapped_folio),
		cmocka_unit_test(free_time_checks_of_large_mapcount),
		cmocka_unit_test(oracle_totals_out_of_step),
		cmocka_unit_test(mm_ids_above_32_bits),
		cmocka_unit_test(removal_flags_a_folio_mapped_entirely),
		cmocka_unit_test(rfc_removal_that_misses_a_partial_mapping),
		cmocka_unit_test(legacy_removal_that_misses_a_partial_mapping),
		cmocka_unit_test(node_stat),
		cmocka_unit_test(thp_counters_and_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
