// SPDX-License-Identifier: MIT
/*
 * The diff's value collector (scenario_values.c) at its bound: a step that
 * needs more value runs than the limit fails with -E2BIG and never hands
 * back a shortened list; under the bound the list is complete.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Before cmocka.h: it defines a fail() macro; the executor has a fail(). */
#include "scenario_values.h"

#include <cmocka.h>

static const char text[] =
	"scenario t\n"
	"process P\n"
	"P mmap A size=64K order=4\n"
	"P touch A\n"
	"P fork C\n"
	"C munmap A off=32K len=32K\n";

/* Runs every statement of scenario 0 in @mode and collects the values
 * with @limit; the collector's result. */
static int collect_after_all(size_t limit, size_t *n)
{
	struct fsim_script *s = NULL;
	struct fsim_run_options opts = { FSIM_MODE_LEGACY, NULL, false };
	struct fsim_result res;
	struct values v = { NULL, 0, 0, limit };
	struct run r;
	size_t k;
	int err;

	assert_int_equal(fsim_script_parse("t.scn", text, strlen(text), &s), 0);
	assert_true(run_begin(&r, s, 0, &opts, &res));
	for (k = 0; k < fsim_script_statements(s, 0); k++) {
		struct stmt st;

		assert_int_equal(stmt_load(s, &s->sc[0], k, &st, NULL, 0), 0);
		assert_true(run_statement(&r, &st));
		r.st = NULL;
		stmt_release(&st);
	}
	err = collect_values(&r, &v);
	*n = v.n;
	values_free(&v);
	run_end(&r);
	fsim_script_free(s);
	return err;
}

static void a_step_over_the_bound_is_refused_not_cut(void **state)
{
	size_t all, cut;

	(void)state;
	assert_int_equal(collect_after_all(1u << 20, &all), 0);
	assert_true(all > 20);
	assert_int_equal(collect_after_all(all, &cut), 0);	/* exactly enough */
	assert_int_equal(cut, all);
	assert_int_equal(collect_after_all(all - 1, &cut), -E2BIG);
	assert_int_equal(collect_after_all(1, &cut), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_step_over_the_bound_is_refused_not_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
