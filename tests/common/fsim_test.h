/* SPDX-License-Identifier: MIT */
/*
 * What the unit, fuzz and stress tests share: the loop over every mode the
 * library has and the consistency check after a step.  Include after
 * <foliosim/foliosim.h> (and after <cmocka.h> for assert_consistent()).
 */
#ifndef FOLIOSIM_TEST_COMMON_H
#define FOLIOSIM_TEST_COMMON_H

#include <foliosim/foliosim.h>

/* Every mode the library has, in kernel order (6.12, the base tree, the
 * series): a loop written this way covers a mode added later.  A test
 * whose expectation depends on the kernel asks fsim_mode_has() for the
 * fact, never the mode. */
#define for_each_mode(mode) \
	for ((mode) = fsim_mode_at(0); (mode) < FSIM_NR_MODES; \
	     (mode) = fsim_test_next_mode(mode))

/* The mode after @mode in kernel order; FSIM_NR_MODES after the last. */
static inline enum fsim_mode fsim_test_next_mode(enum fsim_mode mode)
{
	unsigned int i;

	for (i = 0; i < FSIM_NR_MODES; i++)
		if (fsim_mode_at(i) == mode)
			return fsim_mode_at(i + 1);
	return FSIM_NR_MODES;
}

#ifdef cmocka_unit_test
/* Every invariant of every folio and of the context holds. */
static inline void assert_consistent(const struct fsim_ctx *ctx)
{
	struct fsim_violation v = { { 0 }, { 0 } };

	if (fsim_check_ctx(ctx, &v))
		fail_msg("fsim_check_ctx: %s: %s", v.invariant, v.detail);
}

/* The fixture of most unit tests: a context of one mode and three mms
 * (ids allocated in order); folios come from fsim_test_folio(). */
struct fsim_test_world {
	enum fsim_mode mode;
	struct fsim_ctx *ctx;
	struct fsim_mm *a, *b, *c;
};

static inline void fsim_test_world_init(struct fsim_test_world *w, enum fsim_mode mode)
{
	w->mode = mode;
	assert_int_equal(fsim_ctx_create(mode, NULL, &w->ctx), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->a), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->b), 0);
	assert_int_equal(fsim_mm_create(w->ctx, 0, &w->c), 0);
}

static inline struct fsim_folio *fsim_test_folio(struct fsim_test_world *w, unsigned int order,
						 enum fsim_kind kind)
{
	struct fsim_folio *f = NULL;

	assert_int_equal(fsim_folio_create(w->ctx, order, kind, &f), 0);
	return f;
}
#endif

#endif
