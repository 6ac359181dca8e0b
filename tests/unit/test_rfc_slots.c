// SPDX-License-Identifier: MIT
/*
 * The two MM-id slots of a large folio (rfc mode), step by step, as
 * folio_add_return_large_mapcount()/folio_sub_return_large_mapcount() of
 * the RFC (seeds 010/011) maintain them.  struct fsim_slot.mapcount is the
 * stored _mm_id_mapcount[i] + 1, i.e. the entries the slot accounts for.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>
#include "fsim_test.h"

static const struct fsim_arch arch32 = { 32, 12, 9, 18 };

struct world {
	struct fsim_ctx *ctx;
	struct fsim_mm *a, *b, *c;	/* ids 1, 2, 3 */
	struct fsim_folio *f;		/* anon, order 9 */
};

static void world_init(struct world *w, const struct fsim_arch *arch)
{
	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, arch, &w->ctx), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 1, &w->a), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 2, &w->b), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 3, &w->c), 0);
	assert_int_equal(fsim_folio_create(w->ctx, 9, FSIM_KIND_ANON, &w->f), 0);
}


#define ASSERT_SLOTS(f, id0, n0, id1, n1, shared) do {			\
	struct fsim_slot s_[2];						\
	bool sh_ = !(shared);						\
	assert_int_equal(fsim_folio_slots((f), s_, &sh_), 0);		\
	assert_int_equal(s_[0].mm_id, (id0));				\
	assert_int_equal(s_[0].mapcount, (n0));				\
	assert_int_equal(s_[1].mm_id, (id1));				\
	assert_int_equal(s_[1].mapcount, (n1));				\
	assert_int_equal(sh_, (shared));				\
} while (0)

#define PTE FSIM_LEVEL_PTE
#define PMD FSIM_LEVEL_PMD

static int add(struct world *w, struct fsim_mm *mm, enum fsim_level l,
	       unsigned long page, unsigned long nr)
{
	return fsim_folio_add_anon_rmap(w->f, mm, l, page, nr, false);
}

static int del(struct world *w, struct fsim_mm *mm, enum fsim_level l,
	       unsigned long page, unsigned long nr)
{
	return fsim_folio_remove_rmap(w->f, mm, l, page, nr);
}

static void slots_step_by_step(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, NULL);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, false);

	/* First mm: slot 0 with nr-1 stored, i.e. 16 entries; exclusive. */
	assert_int_equal(add(&w, w.a, PTE, 0, 16), 0);
	ASSERT_SLOTS(w.f, 1, 16, 0, 0, false);
	assert_false(fsim_folio_maybe_mapped_shared(w.f));

	/* Second mm: slot 1, the shared bit goes up. */
	assert_int_equal(add(&w, w.b, PMD, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 16, 2, 1, true);
	assert_true(fsim_folio_maybe_mapped_shared(w.f));

	/* Third mm: both slots taken, untracked; only the mapcount grows. */
	assert_int_equal(add(&w, w.c, PTE, 100, 4), 0);
	ASSERT_SLOTS(w.f, 1, 16, 2, 1, true);
	assert_int_equal(fsim_folio_mapcount(w.f), 21);

	/* A tracked mm adds to its own slot. */
	assert_int_equal(add(&w, w.a, PTE, 16, 16), 0);
	ASSERT_SLOTS(w.f, 1, 32, 2, 1, true);
	assert_int_equal(fsim_folio_mapcount(w.f), 37);
	assert_consistent(w.ctx);

	/* The untracked mm leaves: slots untouched, 33 mappings in two
	 * slots that own 32 and 1: still shared. */
	assert_int_equal(del(&w, w.c, PTE, 100, 4), 0);
	ASSERT_SLOTS(w.f, 1, 32, 2, 1, true);

	/* B leaves: its slot is freed, slot 0 owns all 32 mappings, so the
	 * shared bit is cleared. */
	assert_int_equal(del(&w, w.b, PMD, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 32, 0, 0, false);
	assert_false(fsim_folio_maybe_mapped_shared(w.f));

	/* Partial removal keeps the slot; the last one frees it. */
	assert_int_equal(del(&w, w.a, PTE, 0, 16), 0);
	ASSERT_SLOTS(w.f, 1, 16, 0, 0, false);
	assert_int_equal(del(&w, w.a, PTE, 16, 16), 0);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, false);
	assert_int_equal(fsim_folio_mm_ids_word(w.f), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* Slot 0 freed while slot 1 is held: the next mm takes slot 0 and, since
 * other mappings exist, sets the shared bit ("We might have other mappings
 * already"). */
static void freed_slot0_is_reused_and_marks_shared(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, NULL);
	assert_int_equal(add(&w, w.a, PTE, 0, 2), 0);
	assert_int_equal(add(&w, w.b, PTE, 0, 3), 0);
	ASSERT_SLOTS(w.f, 1, 2, 2, 3, true);

	assert_int_equal(del(&w, w.a, PTE, 0, 2), 0);
	ASSERT_SLOTS(w.f, 0, 0, 2, 3, false);	/* B owns all 3 */

	assert_int_equal(add(&w, w.c, PTE, 10, 1), 0);
	ASSERT_SLOTS(w.f, 3, 1, 2, 3, true);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/*
 * "There are valid corner cases where we might underflow a per-MM
 * mapcount": C maps while both slots are taken (untracked), A leaves
 * (slot 0 freed), C maps more and takes slot 0 with only its new count,
 * then C removes everything: slot 0 goes negative and is reset to
 * free/-1.  No invariant may break on the way.
 */
static void slot_underflow_corner_case(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, NULL);
	assert_int_equal(add(&w, w.a, PTE, 0, 8), 0);
	assert_int_equal(add(&w, w.b, PTE, 0, 4), 0);
	assert_int_equal(add(&w, w.c, PTE, 100, 2), 0);	/* untracked */
	ASSERT_SLOTS(w.f, 1, 8, 2, 4, true);

	assert_int_equal(del(&w, w.a, PTE, 0, 8), 0);
	/* 6 mappings, slot 1 owns 4: still shared. */
	ASSERT_SLOTS(w.f, 0, 0, 2, 4, true);

	assert_int_equal(add(&w, w.c, PTE, 102, 1), 0);
	/* C really maps 3 entries, slot 0 knows about 1. */
	ASSERT_SLOTS(w.f, 3, 1, 2, 4, true);
	assert_int_equal(fsim_oracle_mm_entries(w.f, 3), 3);
	assert_consistent(w.ctx);

	/* 1 - 3 < 0: reset to free; B's slot owns all 4: exclusive. */
	assert_int_equal(del(&w, w.c, PTE, 100, 3), 0);
	ASSERT_SLOTS(w.f, 0, 0, 2, 4, false);
	assert_int_equal(fsim_folio_mapcount(w.f), 4);
	assert_false(fsim_folio_maybe_mapped_shared(w.f));
	assert_consistent(w.ctx);

	assert_int_equal(del(&w, w.b, PTE, 0, 4), 0);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, false);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The same corner case, C removing its mappings one by one: the first
 * removal already underflows the slot; C is untracked afterwards. */
static void slot_underflow_one_by_one(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, NULL);
	assert_int_equal(add(&w, w.a, PTE, 0, 8), 0);
	assert_int_equal(add(&w, w.b, PTE, 0, 4), 0);
	assert_int_equal(add(&w, w.c, PTE, 100, 2), 0);
	assert_int_equal(del(&w, w.a, PTE, 0, 8), 0);
	assert_int_equal(add(&w, w.c, PTE, 102, 1), 0);
	ASSERT_SLOTS(w.f, 3, 1, 2, 4, true);

	assert_int_equal(del(&w, w.c, PTE, 102, 1), 0);
	ASSERT_SLOTS(w.f, 0, 0, 2, 4, true);	/* 1 - 1 = 0 -> free */
	assert_consistent(w.ctx);
	assert_int_equal(del(&w, w.c, PTE, 100, 1), 0);
	ASSERT_SLOTS(w.f, 0, 0, 2, 4, true);
	assert_int_equal(del(&w, w.c, PTE, 101, 1), 0);
	ASSERT_SLOTS(w.f, 0, 0, 2, 4, false);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/*
 * 32-bit: mm_id_mapcount_t is a short.  One mm adding 512 PTEs 65 times
 * pushes its slot past 32767 entries: the slot is reset to free and the
 * folio is marked "maybe mapped shared" though a single mm maps it.
 */
static void short_overflow_resets_slot_on_32bit(void **state)
{
	struct world w;
	int i;

	(void)state;
	world_init(&w, &arch32);
	for (i = 1; i <= 64; i++) {
		assert_int_equal(add(&w, w.a, PTE, 0, 512), 0);
		ASSERT_SLOTS(w.f, 1, 512 * i, 0, 0, false);
	}
	/* 64 * 512 = 32768 entries, stored 32767 = SHRT_MAX. */
	assert_false(fsim_folio_maybe_mapped_shared(w.f));

	assert_int_equal(add(&w, w.a, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, true);
	assert_int_equal(fsim_folio_mapcount(w.f), 65 * 512);
	assert_int_equal(fsim_oracle_mms(w.f, NULL, 0), 1);
	assert_true(fsim_folio_maybe_mapped_shared(w.f));
	assert_consistent(w.ctx);

	/* A is untracked now: removals leave the slots alone; the bit is
	 * only cleared once the folio is unmapped. */
	for (i = 64; i >= 1; i--) {
		assert_int_equal(del(&w, w.a, PTE, 0, 512), 0);
		ASSERT_SLOTS(w.f, 0, 0, 0, 0, true);
	}
	assert_int_equal(del(&w, w.a, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, false);
	assert_int_equal(fsim_folio_mm_ids_word(w.f), 0);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* After the reset, A's next add takes the free slot 0 again with only its
 * new count (and the bit stays set: other mappings exist). */
static void short_overflow_then_slot_retaken(void **state)
{
	struct world w;
	int i;

	(void)state;
	world_init(&w, &arch32);
	for (i = 0; i < 65; i++)
		assert_int_equal(add(&w, w.a, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 0, 0, 0, 0, true);
	assert_int_equal(add(&w, w.a, PTE, 0, 1), 0);
	ASSERT_SLOTS(w.f, 1, 1, 0, 0, true);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* The same overflow in slot 1: slot 0 keeps A, slot 1 is freed; once B
 * is gone, A owns every mapping again and the bit is cleared. */
static void short_overflow_in_slot1(void **state)
{
	struct world w;
	int i;

	(void)state;
	world_init(&w, &arch32);
	assert_int_equal(add(&w, w.a, PTE, 0, 1), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(add(&w, w.b, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 1, 2, 32768, true);
	assert_int_equal(add(&w, w.b, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 1, 0, 0, true);
	assert_consistent(w.ctx);
	for (i = 0; i < 64; i++)
		assert_int_equal(del(&w, w.b, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 1, 0, 0, true);
	assert_int_equal(del(&w, w.b, PTE, 0, 512), 0);
	ASSERT_SLOTS(w.f, 1, 1, 0, 0, false);
	assert_consistent(w.ctx);
	fsim_ctx_destroy(w.ctx);
}

/* fsim_folio_slots() only exists for large folios in rfc mode. */
static void slots_query_refusals(void **state)
{
	struct fsim_ctx *ctx;
	struct fsim_folio *small, *large;
	struct fsim_slot s[2];
	bool sh;

	(void)state;
	assert_int_equal(fsim_ctx_create(FSIM_MODE_RFC, NULL, &ctx), 0);
	assert_int_equal(fsim_folio_create(ctx, 0, FSIM_KIND_ANON, &small), 0);
	assert_int_equal(fsim_folio_slots(small, s, &sh), -EINVAL);
	fsim_ctx_destroy(ctx);
	assert_int_equal(fsim_ctx_create(FSIM_MODE_LEGACY, NULL, &ctx), 0);
	assert_int_equal(fsim_folio_create(ctx, 9, FSIM_KIND_ANON, &large), 0);
	assert_int_equal(fsim_folio_slots(large, s, &sh), -EINVAL);
	fsim_ctx_destroy(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slots_step_by_step),
		cmocka_unit_test(freed_slot0_is_reused_and_marks_shared),
		cmocka_unit_test(slot_underflow_corner_case),
		cmocka_unit_test(slot_underflow_one_by_one),
		cmocka_unit_test(short_overflow_resets_slot_on_32bit),
		cmocka_unit_test(short_overflow_then_slot_retaken),
		cmocka_unit_test(short_overflow_in_slot1),
		cmocka_unit_test(slots_query_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
