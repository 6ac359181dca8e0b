// SPDX-License-Identifier: MIT
/* foliosim report: Markdown (docs/what-changes.md) or JSON. */
#define _POSIX_C_SOURCE 200809L	/* open_memstream() */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "cli.h"
#include "diff_json.h"
#include "json.h"

/* One sentence per reader: the direction the RFC moves it, from counts. */
static void print_drift(const struct fsim_report_totals *t)
{
	int r;

	printf("In these scenarios, after the series:\n\n");
	for (r = 0; r < FSIM_READERS; r++) {
		const unsigned long lo = t->scenarios[r][0], hi = t->scenarios[r][1];
		const char *how;

		if (!lo && !hi)
			how = "never differs from 6.12";
		else if (lo && !hi)
			how = "is only ever lower than in 6.12 (under-estimated)";
		else if (hi && !lo)
			how = "is only ever higher than in 6.12 (over-estimated)";
		else
			how = "drifts both ways (over- and under-estimated)";
		printf("- %s %s", fsim_report_reader_name(r), how);
		if (lo || hi)
			printf(": lower in %lu, higher in %lu scenarios", lo, hi);
		printf(".\n");
	}
}

/* The size of each reader's error: its largest single change. */
static void print_worst(const struct fsim_report_totals *t)
{
	static const char *const unit[FSIM_READERS] = {
		"kB", "kB", "kB", "kB", "mappings", "", "mappings", "folios", "kB" };
	int r;

	printf("| reader | largest change, RFC - 6.12 | relative to 6.12 | where |\n"
	       "|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++) {
		if (!t->worst_abs[r]) {
			printf("| %s | none | | |\n", fsim_report_reader_name(r));
			continue;
		}
		printf("| %s | %+lld %s | ", fsim_report_reader_name(r),
		       (long long)t->worst_abs[r], unit[r]);
		if (*unit[r] && t->worst_rel[r])
			printf("%+.0f%%", t->worst_rel[r]);
		else if (*unit[r])
			printf("(6.12 reads 0)");
		printf(" | %s |\n", t->worst_where[r]);
	}
	printf("\n");
}

/* Which differences the base tree makes and which the 13 patches make. */
static void print_origin(const struct fsim_report_totals *t)
{
	int r;

	printf("## Where the differences come from: the base tree or the series\n\n");
	printf("Of the values where 6.12 and the RFC differ, how many the base tree "
	       "(6.12 + prep, CONFIG_PAGE_MAPCOUNT=y) already shows as the RFC does "
	       "(\"base tree\"), how many it still shows as 6.12 does (\"series\": "
	       "the 13 patches' own effect), and how many it shows differently from "
	       "both (\"both\").\n\n");
	printf("| reader | base tree | series | both |\n|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++)
		printf("| %s | %lu | %lu | %lu |\n", fsim_report_reader_name(r),
		       t->from_base[r], t->from_series[r], t->from_both[r]);
	printf("\n");
}

/* The section what-changes.md leads with: per tool, how wrong it reads. */
static void print_consumers(const struct fsim_report_totals *t)
{
	size_t c;

	printf("## What each tool reads after the series\n\n");
	printf("For each real reader of /proc, its figure computed in the model with the "
	       "tool's own formula (docs/consumers.md cites the source), over every "
	       "scenario below: the largest error after the series against 6.12 "
	       "(RFC - 6.12), the largest relative error, and when it happens.\n\n");
	printf("| tool | figure | largest error | largest relative error | when | shown by |\n"
	       "|---|---|---|---|---|---|\n");
	for (c = 0; c < fsim_consumer_count() && c < (size_t)FSIM_MAX_CONSUMERS; c++) {
		const struct fsim_consumer *k = fsim_consumer_at(c);
		const struct fsim_consumer_error *e = &t->consumers[c];

		printf("| %s | %s | ", k->tool, k->figure);
		if (!e->abs) {
			printf("none | none | never differs from 6.12 in these scenarios | |\n");
			continue;
		}
		printf("%+lld %s (%lld -> %lld) | ", (long long)e->abs, k->unit,
		       (long long)e->abs_legacy, (long long)e->abs_rfc);
		if (e->rel)
			printf("%+.0f%% (%lld -> %lld) | ", e->rel, (long long)e->rel_legacy,
			       (long long)e->rel_rfc);
		else
			printf("(6.12 reads 0) | ");
		printf("%s | %s |\n", k->trigger ? k->trigger : "", e->abs_where);
	}
	printf("\n");
}

static int report_markdown(struct options *o)
{
	struct fsim_report_totals t;
	int i, r, status = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *body;

	memset(&t, 0, sizeof(t));
	/* The scenarios go to memory first: the consumer section, which sums
	 * them up, comes before them. */
	body = open_memstream(&text, &len);
	if (!body) {
		fprintf(stderr, "foliosim report: out of memory\n");
		return 2;
	}
	fprintf(body, "## Scenarios\n\n");
	for (i = 0; i < o->nfiles; i++) {
		struct fsim_script *s;
		char err[512];
		size_t k;

		s = NULL;
		if (fsim_script_load(o->files[i], &s, err, sizeof(err)) ||
		    check_loaded(o, s, err, sizeof(err))) {
			fprintf(stderr, "foliosim: %s\n", err);
			fsim_script_free(s);
			fclose(body);
			free(text);
			return 2;
		}
		for (k = 0; k < fsim_script_count(s); k++)
			if (fsim_script_report(s, k, body, &t))
				status = 1;
		fsim_script_free(s);
	}
	fclose(body);
	print_consumers(&t);
	fwrite(text, 1, len, stdout);
	free(text);
	printf("## Summary: how far each /proc reader drifts\n\n");
	printf("%lu scenarios ran in all modes; in %lu of them a user-visible value differs.\n\n",
	       t.scenarios_run, t.scenarios_differing);
	print_worst(&t);
	printf("| reader | scenarios where the RFC reads lower | higher | values (pages) lower | higher |\n"
	       "|---|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++)
		printf("| %s | %lu | %lu | %lu | %lu |\n", fsim_report_reader_name(r),
		       t.scenarios[r][0], t.scenarios[r][1], t.changes[r][0], t.changes[r][1]);
	printf("\n(For pagemap bit 56, \"lower\" means a page shown exclusive in 6.12 is shown "
	       "maybe-shared after the series.)\n\n");
	print_origin(&t);
	print_drift(&t);
	return status;
}


/* The totals as JSON: per reader the counts and the largest change. */
static void print_totals_json(const struct fsim_report_totals *t)
{
	int r;

	printf("  \"summary\":{\"scenarios_run\":%lu,\"scenarios_differing\":%lu,"
	       "\"readers\":[", t->scenarios_run, t->scenarios_differing);
	for (r = 0; r < FSIM_READERS; r++) {
		printf("%s\n    {", r ? "," : "");
		json_kv_str(stdout, "reader", fsim_report_reader_name(r));
		printf(",\"largest_change\":%" PRId64 ",\"relative_percent\":%.2f,",
		       t->worst_abs[r], t->worst_rel[r]);
		json_kv_str(stdout, "where", t->worst_abs[r] ? t->worst_where[r] : NULL);
		printf(",\"scenarios_lower\":%lu,\"scenarios_higher\":%lu,"
		       "\"values_lower\":%lu,\"values_higher\":%lu,"
		       "\"from_base_tree\":%lu,\"from_series\":%lu,\"from_both\":%lu}",
		       t->scenarios[r][0], t->scenarios[r][1], t->changes[r][0],
		       t->changes[r][1], t->from_base[r], t->from_series[r], t->from_both[r]);
	}
	printf("\n  ],\n  \"consumers\":[");
	for (r = 0; r < (int)fsim_consumer_count() && r < FSIM_MAX_CONSUMERS; r++) {
		const struct fsim_consumer *k = fsim_consumer_at((size_t)r);
		const struct fsim_consumer_error *e = &t->consumers[r];

		printf("%s\n    {", r ? "," : "");
		json_kv_str(stdout, "tool", k->tool);
		printf(",");
		json_kv_str(stdout, "figure", k->figure);
		printf(",");
		json_kv_str(stdout, "unit", k->unit);
		printf(",\"largest_error\":%" PRId64 ",\"legacy\":%" PRId64 ",\"rfc\":%" PRId64
		       ",", e->abs, e->abs_legacy, e->abs_rfc);
		json_kv_str(stdout, "where", e->abs ? e->abs_where : NULL);
		printf(",\"largest_relative_percent\":%.2f,", e->rel);
		json_kv_str(stdout, "relative_where", e->rel ? e->rel_where : NULL);
		printf(",");
		json_kv_str(stdout, "when", k->trigger);
		printf("}");
	}
	printf("\n  ]}\n}\n");
}

/* Every value of a 3-mode JSON comparison also goes to the totals. */
struct json_report {
	struct fsim_report_totals *t;
	const struct fsim_script *s;
	size_t i;
};

static int json_count(void *arg, const struct fsim_diff_value *v, const char **from)
{
	struct json_report *jr = arg;

	*from = fsim_report_add(jr->t, v, jr->s, jr->i);
	return 0;
}

static int report_json(struct options *o)
{
	const enum fsim_mode modes[3] = { FSIM_MODE_LEGACY, FSIM_MODE_BASE, FSIM_MODE_RFC };
	struct fsim_report_totals t;
	bool comma = false;
	int i, status = 0;

	memset(&t, 0, sizeof(t));
	printf("{\n  \"modes\":[\"legacy\",\"base\",\"rfc\"],\n  \"scenarios\":[");
	for (i = 0; i < o->nfiles; i++) {
		struct fsim_script *s;
		char err[512];
		size_t k;

		s = NULL;
		if (fsim_script_load(o->files[i], &s, err, sizeof(err)) ||
		    check_loaded(o, s, err, sizeof(err))) {
			fprintf(stderr, "foliosim: %s\n", err);
			fsim_script_free(s);
			return 2;
		}
		for (k = 0; k < fsim_script_count(s); k++) {
			struct json_report jr = { &t, s, k };
			int st;

			fsim_report_scenario_begin(&t);
			st = diff_json_scenario(stdout, s, k, modes, 3, comma,
						json_count, &jr);
			fsim_report_scenario_end(&t, st);
			status |= st && st != -EOPNOTSUPP;
			comma = true;
		}
		fsim_script_free(s);
	}
	printf("\n  ],\n");
	print_totals_json(&t);
	return status;
}

int cmd_report(struct options *o)
{
	if (!o->nfiles) {
		fprintf(stderr, "foliosim report: no scenario file given\n");
		return 2;
	}
	return o->format == FORMAT_JSON ? report_json(o) : report_markdown(o);
}
