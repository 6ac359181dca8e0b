// SPDX-License-Identifier: MIT
/* foliosim check (text, --tap, --format json) and foliosim run (text,
 * --format json). */
#define _POSIX_C_SOURCE 200809L	/* open_memstream() for run's JSON trace */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json.h"
#include "progress.h"

static const char *const outcome_names[] = { "pass", "fail", "skip" };

/* Every file of the command line is read before anything runs: TAP's plan
 * line counts the scenarios first, and a file that is refused (unreadable,
 * empty, a repeat above the cap) runs none of its scenarios.  A regular
 * file is read twice, one scenario at a time (fsim_script_reader), so that
 * memory follows the largest scenario, not the file; standard input and
 * pipes are held whole (s[i]).  A refused file is one failed test whose
 * message is in errs[i]. */
struct loaded {
	struct fsim_script **s;
	bool *streamed;
	char (*errs)[512];
	size_t tests;
	int file_errors;	/* files not read, empty, or over the repeat cap */
};

static bool is_regular_file(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The first pass over a regular file: its scenarios counted and checked. */
static int survey(const struct options *o, const char *path, size_t *count,
		  char *err, size_t errlen)
{
	struct fsim_script_reader *r = NULL;
	struct fsim_script *s;
	int ret = fsim_script_reader_open(path, &r, err, errlen);

	while (!ret && !(ret = fsim_script_reader_next(r, &s, err, errlen)) && s) {
		ret = check_loaded(o, s, err, errlen);
		fsim_script_free(s);
	}
	if (!ret && !fsim_script_reader_count(r))
		ret = no_scenario_error(path, err, errlen);
	*count = fsim_script_reader_count(r);
	fsim_script_reader_close(r);
	return ret;
}

static int load_one(const struct options *o, struct loaded *l, int i)
{
	const char *path = o->files[i];
	size_t count = 0;

	if (is_regular_file(path)) {
		l->streamed[i] = !survey(o, path, &count, l->errs[i], sizeof(l->errs[0]));
		return l->streamed[i] ? (l->tests += count, 0) : -1;
	}
	if (fsim_script_load(path, &l->s[i], l->errs[i], sizeof(l->errs[0])))
		return -1;
	if (check_loaded(o, l->s[i], l->errs[i], sizeof(l->errs[0]))) {
		fsim_script_free(l->s[i]);
		l->s[i] = NULL;
		return -1;
	}
	l->tests += fsim_script_count(l->s[i]);
	return 0;
}

static int load_all(const struct options *o, struct loaded *l)
{
	int i;

	l->s = calloc((size_t)o->nfiles, sizeof(*l->s));
	l->streamed = calloc((size_t)o->nfiles, sizeof(*l->streamed));
	l->errs = calloc((size_t)o->nfiles, sizeof(*l->errs));
	l->tests = 0;
	l->file_errors = 0;
	if (!l->s || !l->streamed || !l->errs)
		return -1;
	for (i = 0; i < o->nfiles; i++) {
		if (!load_one(o, l, i))
			continue;
		l->tests++;
		l->file_errors++;
		fprintf(stderr, "foliosim: %s\n", l->errs[i]);
	}
	return 0;
}

static void free_all(const struct options *o, struct loaded *l)
{
	int i;

	for (i = 0; l->s && i < o->nfiles; i++)
		fsim_script_free(l->s[i]);
	free(l->s);
	free(l->streamed);
	free(l->errs);
}

/* One result in the chosen format; @n counts the TAP tests. */
static void print_result(const struct options *o, const char *file, const char *name,
			 unsigned int line, int outcome, const char *message,
			 unsigned long n)
{
	switch (o->format) {
	case FORMAT_TAP:
		if (outcome == FSIM_SKIP)
			printf("ok %lu - %s # SKIP %s\n", n, name, message);
		else if (outcome == FSIM_PASS)
			printf("ok %lu - %s\n", n, name);
		else
			printf("not ok %lu - %s\n  ---\n  message: %s\n  ...\n", n, name, message);
		break;
	case FORMAT_JSON:
		printf("%s\n    {", n > 1 ? "," : "");
		json_kv_str(stdout, "file", file);
		printf(",");
		json_kv_str(stdout, "name", name);
		printf(",\"line\":%u,", line);
		json_kv_str(stdout, "outcome", outcome_names[outcome]);
		printf(",");
		json_kv_str(stdout, "message", outcome == FSIM_PASS ? NULL : message);
		printf("}");
		break;
	default:
		if (outcome == FSIM_PASS)
			printf("ok %s\n", name);
		else if (outcome == FSIM_SKIP)
			printf("skip %s: %s\n", name, message);
		else
			printf("FAIL %s: %s\n", name, message);
	}
}

static void print_totals(const struct options *o, unsigned long passed,
			 unsigned long failed, unsigned long skipped)
{
	if (o->format == FORMAT_JSON) {
		printf("\n  ],\n  \"passed\":%lu,\"failed\":%lu,\"skipped\":%lu\n}\n",
		       passed, failed, skipped);
	} else if (o->format == FORMAT_TAP) {
		printf("# %lu passed, %lu failed, %lu skipped\n", passed, failed, skipped);
	} else {
		printf("%lu passed, %lu failed", passed, failed);
		if (skipped)
			printf(", %lu skipped", skipped);
		printf("\n");
	}
}

struct tally {
	unsigned long passed, failed, skipped, n;
};

/* Runs and prints every scenario of @s. */
static void check_script(const struct options *o, struct progress *prog,
			 const struct fsim_script *s, struct tally *t)
{
	struct fsim_run_options ro = { o->mode, NULL, o->no_invariants };
	size_t k;

	for (k = 0; k < fsim_script_count(s); k++) {
		struct fsim_result res;

		progress_begin(prog, fsim_script_file(s), fsim_script_name(s, k));
		fsim_script_run_progress(s, k, &ro, progress_report, prog, &res);
		progress_end(prog);
		print_result(o, fsim_script_file(s), fsim_script_name(s, k),
			     fsim_script_line(s, k), (int)res.outcome, res.message, ++t->n);
		t->passed += res.outcome == FSIM_PASS;
		t->failed += res.outcome == FSIM_FAIL;
		t->skipped += res.outcome == FSIM_SKIP;
	}
}

/* The second pass over a regular file: each scenario parsed, run, freed. */
static void check_streamed(const struct options *o, struct progress *prog,
			   const char *path, struct tally *t)
{
	struct fsim_script_reader *r = NULL;
	struct fsim_script *s;
	char err[512];
	int ret = fsim_script_reader_open(path, &r, err, sizeof(err));

	while (!ret && !(ret = fsim_script_reader_next(r, &s, err, sizeof(err))) && s) {
		check_script(o, prog, s, t);
		fsim_script_free(s);
	}
	if (ret) {	/* it could be read a moment ago */
		print_result(o, path, path, 0, FSIM_FAIL, err, ++t->n);
		t->failed++;
	}
	fsim_script_reader_close(r);
}

int cmd_check(struct options *o)
{
	struct tally t = { 0, 0, 0, 0 };
	struct progress prog;
	struct loaded l;
	int i;

	if (!o->nfiles) {
		fprintf(stderr, "foliosim check: no scenario file given\n");
		return 2;
	}
	if (load_all(o, &l)) {
		free_all(o, &l);
		fprintf(stderr, "foliosim check: out of memory\n");
		return 2;
	}
	progress_init(&prog, o->progress);
	if (o->format == FORMAT_TAP)
		printf("TAP version 13\n1..%zu\n", l.tests);
	if (o->format == FORMAT_JSON)
		printf("{\n  \"mode\":\"%s\",\n  \"scenarios\":[", fsim_mode_name(o->mode));
	for (i = 0; i < o->nfiles; i++) {
		if (l.streamed[i]) {
			check_streamed(o, &prog, o->files[i], &t);
		} else if (l.s[i]) {
			check_script(o, &prog, l.s[i], &t);
		} else {
			print_result(o, o->files[i], o->files[i], 0, FSIM_FAIL, l.errs[i], ++t.n);
			t.failed++;
		}
	}
	print_totals(o, t.passed, t.failed, t.skipped);
	free_all(o, &l);
	return l.file_errors ? 2 : t.failed ? 1 : 0;
}

/* The trace of one scenario as a JSON array of its lines. */
static void print_trace_json(const char *text, size_t len)
{
	size_t a = 0, b;
	bool first = true;

	printf("[");
	while (a < len) {
		char *line;

		for (b = a; b < len && text[b] != '\n'; b++)
			;
		line = strndup(text + a, b - a);
		printf("%s\n      ", first ? "" : ",");
		json_str(stdout, line ? line : "");
		free(line);
		first = false;
		a = b + 1;
	}
	printf("]");
}

/* One scenario of `run --format json`: its trace goes to memory first. */
static int run_json(const struct options *o, const struct fsim_script *s, size_t k)
{
	struct fsim_run_options ro = { o->mode, NULL, o->no_invariants };
	struct fsim_result res;
	char *trace = NULL;
	size_t len = 0;

	ro.trace = open_memstream(&trace, &len);
	if (!ro.trace)
		return -1;
	fsim_script_run(s, k, &ro, &res);
	fclose(ro.trace);
	printf("%s\n    {", k ? "," : "");
	json_kv_str(stdout, "name", fsim_script_name(s, k));
	printf(",\"line\":%u,", fsim_script_line(s, k));
	json_kv_str(stdout, "outcome", outcome_names[res.outcome]);
	printf(",");
	json_kv_str(stdout, "message", res.outcome == FSIM_PASS ? NULL : res.message);
	printf(",\"trace\":");
	print_trace_json(trace, len);
	printf("}");
	free(trace);
	return res.outcome == FSIM_FAIL;
}

int cmd_run(struct options *o)
{
	struct fsim_run_options ro = { o->mode, stdout, o->no_invariants };
	struct fsim_script *s = load_single(o, "run");
	struct progress prog;
	size_t k;
	int status = 0, r;

	if (!s)
		return 2;
	progress_init(&prog, o->progress);
	if (o->format == FORMAT_JSON) {
		printf("{\n  \"mode\":\"%s\",\n  ", fsim_mode_name(o->mode));
		json_kv_str(stdout, "file", fsim_script_file(s));
		printf(",\n  \"scenarios\":[");
	}
	for (k = 0; k < fsim_script_count(s); k++) {
		struct fsim_result res;

		if (o->format == FORMAT_JSON) {
			r = run_json(o, s, k);
			if (r < 0) {
				fprintf(stderr, "foliosim run: out of memory\n");
				status = 2;
				break;
			}
			status |= r;
			continue;
		}
		progress_begin(&prog, fsim_script_file(s), fsim_script_name(s, k));
		fsim_script_run_progress(s, k, &ro, progress_report, &prog, &res);
		progress_end(&prog);
		if (res.outcome == FSIM_PASS) {
			printf("=> ok %s\n\n", fsim_script_name(s, k));
		} else if (res.outcome == FSIM_SKIP) {
			printf("=> skip %s: %s\n\n", fsim_script_name(s, k), res.message);
		} else {
			printf("=> FAIL %s: %s\n\n", fsim_script_name(s, k), res.message);
			status = 1;
		}
	}
	if (o->format == FORMAT_JSON)
		printf("\n  ]\n}\n");
	fsim_script_free(s);
	return status;
}
