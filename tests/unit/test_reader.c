// SPDX-License-Identifier: MIT
/*
 * fsim_script_reader (a file one scenario at a time) must read a file as
 * fsim_script_load() does: the same scenarios, names, lines and errors;
 * and fsim_script_run_progress() must report and stop a long run.
 */
#define _POSIX_C_SOURCE 200809L	/* mkdtemp() */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <foliosim/scenario.h>

static char dir[] = "/tmp/fsim-reader-XXXXXX";
static char path[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.scn", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void write_file(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The reader's scenarios, one by one, against fsim_script_load()'s. */
static void assert_reads_as_load(const char *text, size_t len, size_t expected)
{
	struct fsim_script *whole, *one;
	struct fsim_script_reader *r;
	char err[256];
	size_t i = 0;

	write_file(text, len);
	assert_int_equal(fsim_script_load(path, &whole, err, sizeof(err)), 0);
	assert_int_equal(fsim_script_count(whole), expected);
	assert_int_equal(fsim_script_reader_open(path, &r, err, sizeof(err)), 0);
	for (;;) {
		assert_int_equal(fsim_script_reader_next(r, &one, err, sizeof(err)), 0);
		if (!one)
			break;
		assert_int_equal(fsim_script_count(one), 1);
		assert_true(i < expected);
		assert_string_equal(fsim_script_name(one, 0), fsim_script_name(whole, i));
		assert_int_equal(fsim_script_line(one, 0), fsim_script_line(whole, i));
		assert_int_equal(fsim_script_statements(one, 0),
				 fsim_script_statements(whole, i));
		if (fsim_script_error(whole, i))
			assert_string_equal(fsim_script_error(one, 0), fsim_script_error(whole, i));
		else
			assert_null(fsim_script_error(one, 0));
		fsim_script_free(one);
		i++;
	}
	assert_int_equal(i, expected);
	assert_int_equal(fsim_script_reader_count(r), expected);
	/* after the end it stays at the end */
	assert_int_equal(fsim_script_reader_next(r, &one, err, sizeof(err)), 0);
	assert_null(one);
	fsim_script_reader_close(r);
	fsim_script_free(whole);
}

static void scenarios_lines_and_errors_match_a_whole_load(void **state)
{
	static const char text[] =
		"# a comment before the first scenario\n"
		"\n"
		"scenario a\n"
		"mm M\n"
		"folio F order=4 anon\n"
		"   scenario    b   # indented, with a comment\n"
		"mm M\n"
		"add F mm=M level=pte page=0 nr=1\n"	/* F undeclared in b */
		"scenario c\n"
		"folio F order=99 anon\n"		/* a parse error at line 10 */
		"scenarios are not a keyword here\n"
		"# trailing comment\n";

	(void)state;
	assert_reads_as_load(text, sizeof(text) - 1, 3);
}

static void statements_before_the_first_scenario_are_their_own_failure(void **state)
{
	static const char text[] = "mm M\nscenario a\nmm M\n";

	(void)state;
	assert_reads_as_load(text, sizeof(text) - 1, 2);
}

static void a_nul_byte_does_not_start_a_scenario(void **state)
{
	static const char text[] = "scenario a\nmm M\nscenario\0x\nmm N\n";

	(void)state;
	assert_reads_as_load(text, sizeof(text) - 1, 1);
}

static void an_empty_file_has_no_scenario(void **state)
{
	struct fsim_script_reader *r;
	struct fsim_script *s;
	char err[256];

	(void)state;
	write_file("# only a comment\n", 17);
	assert_int_equal(fsim_script_reader_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(fsim_script_reader_next(r, &s, err, sizeof(err)), 0);
	assert_null(s);
	assert_int_equal(fsim_script_reader_count(r), 0);
	fsim_script_reader_close(r);
}

static void a_directory_and_a_missing_file_are_errors(void **state)
{
	struct fsim_script_reader *r = NULL;
	struct fsim_script *s;
	char err[256];

	(void)state;
	assert_int_equal(fsim_script_reader_open(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(fsim_script_reader_next(r, &s, err, sizeof(err)), -EISDIR);
	assert_null(s);
	assert_non_null(strstr(err, "is a directory"));
	fsim_script_reader_close(r);
	r = NULL;
	assert_int_equal(fsim_script_reader_open("/nonexistent/x.scn", &r, err, sizeof(err)),
			 -ENOENT);
	assert_null(r);
	assert_int_equal(fsim_script_reader_open(NULL, &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(fsim_script_reader_next(NULL, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(fsim_script_reader_count(NULL), 0);
	fsim_script_reader_close(NULL);
}

struct progress_seen {
	unsigned int calls_seen, line;
	unsigned long long last;
	int stop_after;		/* stop at this report; 0: never */
};

static int on_progress(void *arg, unsigned int line, unsigned long long calls)
{
	struct progress_seen *p = arg;

	assert_true(calls > p->last);
	p->last = calls;
	p->line = line;
	return ++p->calls_seen == (unsigned int)p->stop_after;
}

static const char long_run[] =
	"scenario long\n"
	"mode rfc\n"
	"mm A\n"
	"folio F order=9 anon\n"
	"new-anon F mm=A\n"
	"repeat 200000 add F mm=A level=pte page=0 nr=1\n"
	"repeat 200000 remove F mm=A level=pte page=0 nr=1\n"
	"expect F mapcount=1\n";

static void progress_is_reported_with_the_running_line(void **state)
{
	struct fsim_run_options ro = { FSIM_MODE_RFC, NULL, true };
	struct progress_seen seen = { 0, 0, 0, 0 };
	struct fsim_script *s;
	struct fsim_result res;

	(void)state;
	assert_int_equal(fsim_script_parse("t.scn", long_run, sizeof(long_run) - 1, &s), 0);
	fsim_script_run_progress(s, 0, &ro, on_progress, &seen, &res);
	assert_int_equal(res.outcome, FSIM_PASS);
	/* 400,000 repeated calls: 6 reports of 65,536 */
	assert_int_equal(seen.calls_seen, 6);
	assert_int_equal(seen.line, 7);
	fsim_script_free(s);
}

static void progress_can_stop_a_run(void **state)
{
	struct fsim_run_options ro = { FSIM_MODE_RFC, NULL, true };
	struct progress_seen seen = { 0, 0, 0, 2 };
	struct fsim_script *s;
	struct fsim_result res;

	(void)state;
	assert_int_equal(fsim_script_parse("t.scn", long_run, sizeof(long_run) - 1, &s), 0);
	fsim_script_run_progress(s, 0, &ro, on_progress, &seen, &res);
	assert_int_equal(res.outcome, FSIM_FAIL);
	assert_non_null(strstr(res.message, "stopped by the progress callback"));
	assert_int_equal(seen.calls_seen, 2);
	/* without a callback the same run passes */
	fsim_script_run_progress(s, 0, &ro, NULL, NULL, &res);
	assert_int_equal(res.outcome, FSIM_PASS);
	fsim_script_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scenarios_lines_and_errors_match_a_whole_load),
		cmocka_unit_test(statements_before_the_first_scenario_are_their_own_failure),
		cmocka_unit_test(a_nul_byte_does_not_start_a_scenario),
		cmocka_unit_test(an_empty_file_has_no_scenario),
		cmocka_unit_test(a_directory_and_a_missing_file_are_errors),
		cmocka_unit_test(progress_is_reported_with_the_running_line),
		cmocka_unit_test(progress_can_stop_a_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
