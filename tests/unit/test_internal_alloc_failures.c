// SPDX-License-Identifier: MIT
/*
 * Injected allocation failures in the scenario parser, as the kernel's
 * tools/testing/shared harness injects them: the N-th allocation fails,
 * for every N until a parse needs fewer.  Whatever fails, the parse either
 * reports -ENOMEM or returns a script whose every kept statement loads
 * again and runs; a statement kept before the failure must not meet a
 * half-declared name later (a name numbered without its declaration steps
 * made a replay read past them).  The library's malloc, calloc and realloc
 * are wrapped at link time (-Wl,--wrap); cmocka's own are not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "foliosim/scenario.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long fail_at;	/* the allocation that fails, 1-based; 0: none */
static long allocations;

static int injected(void)
{
	return fail_at && ++allocations == fail_at;
}

void *__wrap_malloc(size_t size)
{
	return injected() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return injected() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return injected() ? NULL : __real_realloc(p, size);
}

/* Fail allocation @n from now on; 0: none (the count is kept). */
static void arm(long n)
{
	if (n)
		allocations = 0;
	fail_at = n;
}

static const char text[] =
	"scenario names-after-their-use\n"
	"expect A mapcount=0\n"
	"mm A\n"
	"folio F order=2 anon\n"
	"new-anon F mm=A\n"
	"expect F mapcount=1 true_mapcount[0:4]=1\n"
	"scenario processes\n"
	"process P\n"
	"P mmap R size=64K order=4\n"
	"P touch R\n"
	"P fork Q\n"
	"expect P rss_kb=64\n"
	"expect Q R rss_kb=64\n";

/* Every kept statement of @s loads, with nothing failing. */
static void every_statement_loads(const struct fsim_script *s)
{
	struct fsim_run_options opts = { FSIM_MODE_RFC, NULL, false };
	struct fsim_stmt_view v;
	struct fsim_stmt_op op;
	struct fsim_result res;
	size_t i, k;

	for (i = 0; i < fsim_script_count(s); i++) {
		for (k = 0; k < fsim_script_statements(s, i); k++) {
			assert_int_equal(fsim_script_op(s, i, k, &op), 0);
			assert_int_equal(fsim_script_statement(s, i, k, &v), 0);
		}
		fsim_script_run(s, i, &opts, &res);
		assert_null(strstr(res.message, "internal error"));
	}
}

static void a_failed_allocation_in_the_parse_leaves_a_script_that_loads(void **state)
{
	long n;

	(void)state;
	for (n = 1;; n++) {
		struct fsim_script *s = NULL;
		int ret;

		arm(n);
		ret = fsim_script_parse("t.scn", text, strlen(text), &s);
		arm(0);
		assert_true(ret == 0 || ret == -ENOMEM);
		if (!ret)
			every_statement_loads(s);
		fsim_script_free(s);
		if (allocations < n)
			break;	/* the parse needed fewer: every one has failed once */
	}
	print_message("the parse made %ld allocations\n", n - 1);
	assert_true(n > 10);
}

/* A failure in fsim_script_op(), fsim_script_statement() or a run returns
 * an error or fails the run; the script stays usable. */
static void a_failed_allocation_in_a_load_is_an_error_not_a_crash(void **state)
{
	struct fsim_script *s = NULL;
	long n;

	(void)state;
	assert_int_equal(fsim_script_parse("t.scn", text, strlen(text), &s), 0);
	for (n = 1;; n++) {
		struct fsim_run_options opts = { FSIM_MODE_RFC, NULL, false };
		struct fsim_stmt_view v;
		struct fsim_stmt_op op;
		struct fsim_result res;
		int a, b;

		arm(n);
		a = fsim_script_op(s, 0, 4, &op);
		b = fsim_script_statement(s, 1, 3, &v);
		fsim_script_run(s, 0, &opts, &res);
		arm(0);
		assert_true(a == 0 || a == -ENOMEM);
		assert_true(b == 0 || b == -ENOMEM);
		assert_null(strstr(res.message, "internal error"));
		if (allocations < n)
			break;
	}
	every_statement_loads(s);
	fsim_script_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_failed_allocation_in_the_parse_leaves_a_script_that_loads),
		cmocka_unit_test(a_failed_allocation_in_a_load_is_an_error_not_a_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
