// SPDX-License-Identifier: MIT
/*
 * The mm id allocator: mm_init() takes ida_alloc_range(&mm_ida, MM_ID_MIN,
 * MM_ID_MAX), __mmdrop() gives the id back.  MM_ID_MAX is 2^31-1 with
 * 64-bit mm_id_t, 2^15-1 with the 32-bit unsigned short.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <foliosim/foliosim.h>
#include "fsim_test.h"

static const struct fsim_arch arch32 = { 32, 12, 9, 18 };

static struct fsim_ctx *new_ctx(enum fsim_mode mode, const struct fsim_arch *arch)
{
	struct fsim_ctx *ctx = NULL;

	assert_int_equal(fsim_ctx_create(mode, arch, &ctx), 0);
	return ctx;
}

static struct fsim_mm *new_mm(struct fsim_ctx *ctx, unsigned int id)
{
	struct fsim_mm *mm = NULL;

	assert_int_equal(fsim_mm_create(ctx, id, &mm), 0);
	return mm;
}

static void ids_are_lowest_free_first_from_one(void **state)
{
	struct fsim_ctx *ctx = new_ctx(FSIM_MODE_RFC, NULL);
	struct fsim_mm *a, *b, *c, *d, *e;

	(void)state;
	a = new_mm(ctx, 0);
	b = new_mm(ctx, 0);
	c = new_mm(ctx, 0);
	/* MM_ID_DUMMY (0) is never handed out. */
	assert_int_equal(fsim_mm_id(a), 1);
	assert_int_equal(fsim_mm_id(b), 2);
	assert_int_equal(fsim_mm_id(c), 3);

	/* Freeing id 2 of {1,2,3}: the next mm gets 2, then 4. */
	assert_int_equal(fsim_mm_destroy(b), 0);
	d = new_mm(ctx, 0);
	assert_int_equal(fsim_mm_id(d), 2);
	e = new_mm(ctx, 0);
	assert_int_equal(fsim_mm_id(e), 4);

	/* Two holes: lowest first. */
	assert_int_equal(fsim_mm_destroy(c), 0);
	assert_int_equal(fsim_mm_destroy(a), 0);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 1);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 3);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 5);
	fsim_ctx_destroy(ctx);
}

static void explicit_ids_are_taken_and_skipped(void **state)
{
	struct fsim_ctx *ctx = new_ctx(FSIM_MODE_LEGACY, NULL);
	struct fsim_mm *mm = NULL, *seven;
	unsigned int i;

	(void)state;
	seven = new_mm(ctx, 7);
	assert_int_equal(fsim_mm_id(seven), 7);
	/* A taken id is refused ... */
	assert_int_equal(fsim_mm_create(ctx, 7, &mm), -EINVAL);
	assert_null(mm);
	/* ... and skipped by the automatic allocation. */
	for (i = 1; i <= 6; i++)
		assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), i);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 8);
	/* Once freed, it can be asked for again. */
	assert_int_equal(fsim_mm_destroy(seven), 0);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 7)), 7);
	fsim_ctx_destroy(ctx);
}

static void explicit_id_limit_64bit_is_2_pow_31_minus_1(void **state)
{
	struct fsim_ctx *ctx = new_ctx(FSIM_MODE_RFC, NULL);
	struct fsim_mm *mm = NULL;

	(void)state;
	assert_int_equal(fsim_mm_create(ctx, 0x80000000u, &mm), -EINVAL);
	assert_int_equal(fsim_mm_create(ctx, 0xffffffffu, &mm), -EINVAL);
	assert_null(mm);
	/* MM_ID_MAX itself is a valid id (note: the bitmap allocator
	 * allocates 256 MiB for it; reported to the lead). */
	mm = new_mm(ctx, 0x7fffffffu);
	assert_int_equal(fsim_mm_id(mm), 0x7fffffffu);
	assert_int_equal(fsim_mm_create(ctx, 0x7fffffffu, &mm), -EINVAL);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 1);
	fsim_ctx_destroy(ctx);
}

static void explicit_id_limit_32bit_is_32767(void **state)
{
	struct fsim_ctx *ctx = new_ctx(FSIM_MODE_RFC, &arch32);
	struct fsim_mm *mm = NULL;

	(void)state;
	assert_int_equal(fsim_mm_create(ctx, 32768, &mm), -EINVAL);
	assert_int_equal(fsim_mm_create(ctx, 65535, &mm), -EINVAL);
	assert_int_equal(fsim_mm_create(ctx, 0x7fffffffu, &mm), -EINVAL);
	assert_null(mm);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 32767)), 32767);
	assert_int_equal(fsim_mm_create(ctx, 32767, &mm), -EINVAL);
	fsim_ctx_destroy(ctx);
}

static void enospc_once_all_32bit_ids_are_taken(void **state)
{
	struct fsim_ctx *ctx = new_ctx(FSIM_MODE_RFC, &arch32);
	struct fsim_mm **mms = calloc(32768, sizeof(*mms));
	struct fsim_mm *mm = NULL;
	unsigned int i;

	(void)state;
	assert_non_null(mms);
	/* The first 2000 in allocation order, the rest by explicit id (the
	 * allocator scans from id 1 bit by bit: quadratic over all 32767). */
	for (i = 1; i <= 2000; i++) {
		mms[i] = new_mm(ctx, 0);
		assert_int_equal(fsim_mm_id(mms[i]), i);
	}
	for (i = 32767; i > 2000; i--)
		mms[i] = new_mm(ctx, i);
	assert_int_equal(fsim_mm_create(ctx, 0, &mm), -ENOSPC);
	assert_null(mm);
	/* Asking for a (taken) id explicitly is -EINVAL, not -ENOSPC. */
	assert_int_equal(fsim_mm_create(ctx, 5, &mm), -EINVAL);

	/* One id freed: exactly that one comes back, then none again. */
	assert_int_equal(fsim_mm_destroy(mms[12345]), 0);
	assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 12345);
	assert_int_equal(fsim_mm_create(ctx, 0, &mm), -ENOSPC);
	free(mms);
	fsim_ctx_destroy(ctx);
}

/* __mmdrop() cannot run while page tables still map the folio. */
static void destroy_is_ebusy_while_the_mm_maps_a_folio(void **state)
{
	static const unsigned int orders[] = { 0, 4, 9 };
	enum fsim_mode mode;
	unsigned int k;

	(void)state;
	for_each_mode(mode) {
		for (k = 0; k < 3; k++) {
			struct fsim_ctx *ctx = new_ctx(mode, NULL);
			struct fsim_mm *a = new_mm(ctx, 0), *child = new_mm(ctx, 0);
			struct fsim_folio *f;
			const unsigned long nr = 1ul << orders[k];
			const enum fsim_level lvl = orders[k] == 9 ? FSIM_LEVEL_PMD
								  : FSIM_LEVEL_PTE;

			assert_int_equal(fsim_folio_create(ctx, orders[k], FSIM_KIND_ANON, &f), 0);
			assert_int_equal(fsim_folio_add_new_anon_rmap(f, a, true), 0);
			assert_int_equal(fsim_folio_try_dup_anon_rmap(f, child, a, lvl, 0, nr), 0);

			assert_int_equal(fsim_mm_destroy(a), -EBUSY);
			assert_int_equal(fsim_mm_destroy(child), -EBUSY);
			/* The busy mm still holds its id. */
			assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 3);

			assert_int_equal(fsim_folio_remove_rmap(f, child, lvl, 0, nr), 0);
			assert_int_equal(fsim_mm_destroy(child), 0);
			assert_int_equal(fsim_mm_destroy(a), -EBUSY);
			assert_int_equal(fsim_folio_remove_rmap(f, a, lvl, 0, nr), 0);
			assert_int_equal(fsim_mm_destroy(a), 0);
			assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 1);
			assert_int_equal(fsim_mm_id(new_mm(ctx, 0)), 2);
			fsim_ctx_destroy(ctx);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_are_lowest_free_first_from_one),
		cmocka_unit_test(explicit_ids_are_taken_and_skipped),
		cmocka_unit_test(explicit_id_limit_64bit_is_2_pow_31_minus_1),
		cmocka_unit_test(explicit_id_limit_32bit_is_32767),
		cmocka_unit_test(enospc_once_all_32bit_ids_are_taken),
		cmocka_unit_test(destroy_is_ebusy_while_the_mm_maps_a_folio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
