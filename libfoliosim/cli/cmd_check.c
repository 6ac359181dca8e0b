// SPDX-License-Identifier: MIT
/* foliosim check (text, --tap, --format json) and foliosim run (text,
 * --format json). */
#define _POSIX_C_SOURCE 200809L	/* open_memstream() for run's JSON trace */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

static const char *const outcome_names[] = { "pass", "fail", "skip" };

/* Every file of the command line, loaded before anything runs: TAP's plan
 * line counts the scenarios first.  A file that cannot be read is one
 * failed test whose message is in errs[i]. */
struct loaded {
	struct fsim_script **s;
	char (*errs)[512];
	size_t tests;
	int file_errors;	/* files not read, empty, or over the repeat cap */
};

static int load_all(const struct options *o, struct loaded *l)
{
	int i;

	l->s = calloc((size_t)o->nfiles, sizeof(*l->s));
	l->errs = calloc((size_t)o->nfiles, sizeof(*l->errs));
	l->tests = 0;
	l->file_errors = 0;
	if (!l->s || !l->errs)
		return -1;
	for (i = 0; i < o->nfiles; i++) {
		bool loaded = !fsim_script_load(o->files[i], &l->s[i], l->errs[i],
						sizeof(l->errs[0]));

		if (loaded && check_loaded(o, l->s[i], l->errs[i], sizeof(l->errs[0]))) {
			fsim_script_free(l->s[i]);
			loaded = false;
		}
		if (!loaded) {
			l->s[i] = NULL;
			l->tests++;
			l->file_errors++;
			fprintf(stderr, "foliosim: %s\n", l->errs[i]);
		} else {
			l->tests += fsim_script_count(l->s[i]);
		}
	}
	return 0;
}

static void free_all(const struct options *o, struct loaded *l)
{
	int i;

	for (i = 0; l->s && i < o->nfiles; i++)
		fsim_script_free(l->s[i]);
	free(l->s);
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

int cmd_check(struct options *o)
{
	unsigned long passed = 0, failed = 0, skipped = 0, n = 0;
	struct fsim_run_options ro = { o->mode, NULL, o->no_invariants };
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
	if (o->format == FORMAT_TAP)
		printf("TAP version 13\n1..%zu\n", l.tests);
	if (o->format == FORMAT_JSON)
		printf("{\n  \"mode\":\"%s\",\n  \"scenarios\":[", fsim_mode_name(o->mode));
	for (i = 0; i < o->nfiles; i++) {
		size_t k;

		if (!l.s[i]) {
			print_result(o, o->files[i], o->files[i], 0, FSIM_FAIL, l.errs[i], ++n);
			failed++;
			continue;
		}
		for (k = 0; k < fsim_script_count(l.s[i]); k++) {
			struct fsim_result res;

			fsim_script_run(l.s[i], k, &ro, &res);
			print_result(o, fsim_script_file(l.s[i]), fsim_script_name(l.s[i], k),
				     fsim_script_line(l.s[i], k), (int)res.outcome, res.message,
				     ++n);
			passed += res.outcome == FSIM_PASS;
			failed += res.outcome == FSIM_FAIL;
			skipped += res.outcome == FSIM_SKIP;
		}
	}
	print_totals(o, passed, failed, skipped);
	free_all(o, &l);
	return l.file_errors ? 2 : failed ? 1 : 0;
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
	size_t k;
	int status = 0, r;

	if (!s)
		return 2;
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
		fsim_script_run(s, k, &ro, &res);
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
