// SPDX-License-Identifier: MIT
/*
 * fsim_script_compare(): the lockstep comparison behind `foliosim diff`
 * and `report`.  Each test is a case the earlier diff missed: drift at a
 * page other than page 0, an answer past a fixed table of 8192 values,
 * two threads comparing at once.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <foliosim/scenario.h>

static struct fsim_script *parse(const char *text)
{
	struct fsim_script *s = NULL;

	assert_int_equal(fsim_script_parse("t.scn", text, strlen(text), &s), 0);
	assert_null(fsim_script_error(s, 0));
	return s;
}

/* Every differing value, as "LINE LABEL: A | B" lines. */
struct seen {
	char *text;
	size_t len;
};

static int remember(void *arg, const struct fsim_diff_value *v)
{
	struct seen *s = arg;
	char label[256], a[32], b[32], line[400];
	int n;

	fsim_diff_value_label(v, label, sizeof(label));
	fsim_diff_value_text(v, 0, a, sizeof(a));
	fsim_diff_value_text(v, 1, b, sizeof(b));
	n = snprintf(line, sizeof(line), "%u %s: %s | %s\n", v->line, label, a, b);
	s->text = realloc(s->text, s->len + (size_t)n + 1);
	assert_non_null(s->text);
	memcpy(s->text + s->len, line, (size_t)n + 1);
	s->len += (size_t)n;
	return 0;
}

static const enum fsim_mode legacy_rfc[2] = { FSIM_MODE_LEGACY, FSIM_MODE_RFC };

static char *compare(const struct fsim_script *s)
{
	struct seen seen = { NULL, 0 };
	char err[512];

	assert_int_equal(fsim_script_compare(s, 0, legacy_rfc, 2, remember, &seen, err,
					     sizeof(err)), 0);
	return seen.text ? seen.text : calloc(1, 1);
}

/* The child unmaps the upper half of a 64K mTHP: the parent's kpagecount
 * of pages 8-15 drops to 1 in 6.12, page 0 does not change. */
static void drift_at_pages_other_than_0_is_reported(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\n"
		"process P\n"
		"P mmap A size=64K order=4\n"
		"P touch A\n"
		"P fork C\n"
		"C munmap A off=32K len=32K\n");
	char *text = compare(s);

	(void)state;
	assert_non_null(strstr(text, "6 P A kpagecount pages 8-15: 1 | 2\n"));
	assert_null(strstr(text, "P A kpagecount page 0:"));
	free(text);
	fsim_script_free(s);
}

/* 1030 forks, then one child unmaps half of the mTHP: 1031 processes of
 * ten region values each are more than the 8192 values the earlier diff
 * held, and it answered "no user-visible value differs". */
static void the_answer_after_1030_forks_is_complete(void **state)
{
	size_t cap = 64 * 1100, len = 0;
	char *text = malloc(cap), *seen;
	struct fsim_script *s;
	int i;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
				"scenario t\nprocess P\nP mmap A size=64K order=4\nP touch A\n");
	for (i = 1; i <= 1030; i++)
		len += (size_t)snprintf(text + len, cap - len, "P fork C%d\n", i);
	snprintf(text + len, cap - len, "C1 munmap A off=32K len=32K\n");
	s = parse(text);
	seen = compare(s);
	assert_non_null(strstr(seen, "1035 P A kpagecount pages 8-15: 1030 | "));
	assert_non_null(strstr(seen, "1035 C1030 A kpagecount pages 8-15: 1030 | "));
	free(seen);
	free(text);
	fsim_script_free(s);
}

struct job {
	const char *text;
	char *result;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct fsim_script *s = NULL;
	struct seen seen = { NULL, 0 };
	char err[512];

	if (fsim_script_parse("t.scn", j->text, strlen(j->text), &s))
		return NULL;
	if (!fsim_script_compare(s, 0, legacy_rfc, 2, remember, &seen, err, sizeof(err)))
		j->result = seen.text ? seen.text : calloc(1, 1);
	fsim_script_free(s);
	return NULL;
}

/* No static state: two threads compare two scripts at once and get what
 * each gets alone (ThreadSanitizer runs this in the tsan suite). */
static void two_threads_compare_at_once(void **state)
{
	static const char *const texts[2] = {
		"scenario a\nprocess P\nP mmap A size=64K order=4\nP touch A\n"
		"P fork C\nC munmap A off=32K len=32K\nC dontneed A off=0 len=4K\n",
		"scenario b\nprocess P\nP mmap A size=2M order=9\nP touch A\n"
		"P fork C\nC munmap A off=0 len=1M\nP dontneed A off=1M len=1M\n",
	};
	struct job alone[2] = { { texts[0], NULL }, { texts[1], NULL } };
	struct job both[2] = { { texts[0], NULL }, { texts[1], NULL } };
	pthread_t t[2];
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		run_job(&alone[i]);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, run_job, &both[i]), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (i = 0; i < 2; i++) {
		assert_non_null(alone[i].result);
		assert_non_null(both[i].result);
		assert_true(strlen(alone[i].result) > 0);
		assert_string_equal(alone[i].result, both[i].result);
		free(alone[i].result);
		free(both[i].result);
	}
}

static int stop_at_first(void *arg, const struct fsim_diff_value *v)
{
	(void)v;
	++*(int *)arg;
	return 1;
}

static void bad_arguments_and_stopping(void **state)
{
	struct fsim_script *s = parse(
		"scenario t\nprocess P\nP mmap A size=64K order=4\nP touch A\n"
		"P fork C\nC munmap A off=32K len=32K\n");
	const enum fsim_mode three[3] = { FSIM_MODE_LEGACY, FSIM_MODE_BASE, FSIM_MODE_RFC };
	const enum fsim_mode bad[2] = { FSIM_MODE_LEGACY, (enum fsim_mode)7 };
	char err[128];
	int calls = 0;

	(void)state;
	assert_int_equal(fsim_script_compare(s, 1, legacy_rfc, 2, stop_at_first, &calls,
					     err, sizeof(err)), -EINVAL);
	assert_int_equal(fsim_script_compare(s, 0, legacy_rfc, 1, stop_at_first, &calls,
					     err, sizeof(err)), -EINVAL);
	assert_int_equal(fsim_script_compare(s, 0, bad, 2, stop_at_first, &calls,
					     err, sizeof(err)), -EINVAL);
	assert_int_equal(calls, 0);
	assert_int_equal(fsim_script_compare(s, 0, three, 3, stop_at_first, &calls,
					     err, sizeof(err)), 0);
	assert_int_equal(calls, 1);	/* the callback's nonzero stopped it */
	fsim_script_free(s);
}

/* The error convention (0.4.0): a scenario one of the modes does not run
 * is -EOPNOTSUPP (a skip; diff notes it and returns 0), a statement that
 * fails is -ECANCELED, with @err naming it; no 1 or -1 (-EPERM). */
static void skips_and_failed_statements(void **state)
{
	struct fsim_script *only_rfc = parse(
		"scenario r\nmode rfc\nmm A\nfolio F order=4 anon\n"
		"new-anon F mm=A\n");
	struct fsim_script *bad = parse(
		"scenario b\nmm A\nfolio F order=4 anon\n"
		"remove F mm=A level=pte page=0 nr=1\n");
	char err[256];
	int calls = 0;
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(null);
	assert_int_equal(fsim_script_compare(only_rfc, 0, legacy_rfc, 2, stop_at_first, &calls,
					     err, sizeof(err)), -EOPNOTSUPP);
	assert_true(*err);
	assert_int_equal(fsim_script_diff(only_rfc, 0, null), 0);
	assert_int_equal(fsim_script_compare(bad, 0, legacy_rfc, 2, stop_at_first, &calls,
					     err, sizeof(err)), -ECANCELED);
	assert_non_null(strstr(err, "t.scn:4"));
	assert_int_equal(fsim_script_diff(bad, 0, null), -ECANCELED);
	assert_int_equal(fsim_script_diff(bad, 1, null), -EINVAL);
	assert_int_equal(calls, 0);
	/* names: "not found" is -ENOENT, a missing scenario -EINVAL */
	assert_int_equal(fsim_script_name_find(bad, 0, "A"), 0);
	assert_int_equal(fsim_script_name_find(bad, 0, "Z"), -ENOENT);
	assert_int_equal(fsim_script_name_find(bad, 3, "A"), -EINVAL);
	fclose(null);
	fsim_script_free(only_rfc);
	fsim_script_free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drift_at_pages_other_than_0_is_reported),
		cmocka_unit_test(the_answer_after_1030_forks_is_complete),
		cmocka_unit_test(two_threads_compare_at_once),
		cmocka_unit_test(bad_arguments_and_stopping),
		cmocka_unit_test(skips_and_failed_statements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
