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
#endif

#endif
