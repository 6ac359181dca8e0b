// SPDX-License-Identifier: MIT
/* Lockstep runs of one scenario in several modes: `foliosim diff` and
 * `foliosim report` (docs/what-changes.md). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_exec.h"

/* ------------------------------------------------------------------ */
/* foliosim diff: both modes in lockstep                               */
/* ------------------------------------------------------------------ */

#define MAX_VALUES 8192

struct values {
	size_t n;
	char key[MAX_VALUES][64];
	char val[MAX_VALUES][32];
};

static void put_value(struct values *v, const char *key, const char *val)
{
	if (v->n == MAX_VALUES)
		return;
	snprintf(v->key[v->n], sizeof(v->key[0]), "%s", key);
	snprintf(v->val[v->n], sizeof(v->val[0]), "%s", val);
	v->n++;
}

/* The values of one region, smaps walked once. */
static void collect_region(struct run *r, struct values *v, const char *pname,
			   struct fsim_process *p, const char *region)
{
	static const char *const page_keys[] = { "kpagecount@0", "exclusive@0" };
	struct fsim_smaps_kb kb;
	char key[64], val[32];
	size_t j;

	if (fsim_process_smaps_kb(p, region, &kb))
		return;
	{
		const char *const names[8] = { "rss_kb", "pss_kb", "private_kb",
					       "shared_kb", "anon_huge_kb", "mapmax",
					       "shared_hugetlb_kb", "private_hugetlb_kb" };
		const uint64_t vals[8] = { kb.rss, kb.pss, kb.private_total,
					   kb.shared_total, kb.anon_huge, kb.mapmax,
					   kb.shared_hugetlb, kb.private_hugetlb };

		for (j = 0; j < 8; j++) {
			snprintf(key, sizeof(key), "%s %s %s", pname, region, names[j]);
			snprintf(val, sizeof(val), "%llu", (unsigned long long)vals[j]);
			put_value(v, key, val);
		}
	}
	for (j = 0; j < sizeof(page_keys) / sizeof(*page_keys); j++) {
		if (!region_value(r, p, region, page_keys[j], val, sizeof(val)))
			continue;
		snprintf(key, sizeof(key), "%s %s %s", pname, region, page_keys[j]);
		put_value(v, key, val);
	}
}

/* Everything user-visible after a statement, as key=value. */
static void collect_values(struct run *r, struct values *v)
{
	static const char *const folio_keys[] = { "mapcount", "total_mapped_pages",
		"avg_mapcount", "maybe_shared", "partially_mapped", "kpagecount[0]",
		"exclusive[0]", "mapmax[0]" };
	char key[64], val[32];
	size_t k, i;
	unsigned int o;
	int st;

	v->n = 0;
	for (k = 0; k < r->nsyms; k++) {
		struct sym *s = &r->syms[k];

		if (s->dead)
			continue;
		if (s->kind == SYM_FOLIO) {
			for (i = 0; i < sizeof(folio_keys) / sizeof(*folio_keys); i++) {
				char base[32];

				snprintf(base, sizeof(base), "%.*s",
					 (int)strcspn(folio_keys[i], "["), folio_keys[i]);
				/* Page-level values only mean something for a mapped page. */
				if (strchr(folio_keys[i], '[') &&
				    !fsim_oracle_true_mapcount(s->obj, 0))
					continue;
				folio_value(r, s->obj, base, 0, val, sizeof(val));
				snprintf(key, sizeof(key), "%s %s", s->name, folio_keys[i]);
				put_value(v, key, val);
			}
		} else if (s->kind == SYM_PROCESS) {
			struct region_names rn;

			regions_of(r, s->obj, &rn);
			for (i = 0; i < rn.n; i++)
				collect_region(r, v, s->name, s->obj, rn.name[i]);
		}
	}
	for (st = 0; st < FSIM_NR_STATS; st++) {
		snprintf(val, sizeof(val), "%lld",
			 (long long)fsim_ctx_stat(r->ctx, (enum fsim_stat)st));
		snprintf(key, sizeof(key), "stats %s", fsim_stat_name((enum fsim_stat)st));
		put_value(v, key, val);
	}
	snprintf(val, sizeof(val), "%lld", (long long)anon_pages_kb(r));
	put_value(v, "meminfo anon_pages_kb", val);
	for (o = 2; o <= fsim_ctx_arch(r->ctx)->pmd_order; o++) {
		snprintf(key, sizeof(key), "thp order=%u nr_anon_partially_mapped", o);
		snprintf(val, sizeof(val), "%lld", (long long)fsim_ctx_thp_counter(r->ctx, o,
			 FSIM_THP_NR_ANON_PARTIALLY_MAPPED));
		put_value(v, key, val);
	}
}

/* One value after a statement, in each of the compared modes. */
typedef void (*diff_fn)(void *arg, const struct stmt *st, const char *key,
			const char *const *vals);

/* The runs of one lockstep: a run, its result and its values per mode. */
struct lane {
	struct fsim_run_options opts;
	struct fsim_result res;
	struct run run;
	struct values *vals;
};

static bool lanes_differ(struct lane *ln, size_t n, size_t j)
{
	size_t m;

	for (m = 1; m < n; m++)
		if (j >= ln[m].vals->n || strcmp(ln[0].vals->key[j], ln[m].vals->key[j]))
			return false;	/* not the same value: not comparable */
	for (m = 1; m < n; m++)
		if (strcmp(ln[0].vals->val[j], ln[m].vals->val[j]))
			return true;
	return false;
}

/* Runs scenario i in the @n modes in lockstep, calling fn for every value
 * that differs between them after a statement.  0, or -1 if a statement
 * failed (the message is in err). */
static int lockstep(const struct fsim_script *script, size_t i,
		    const enum fsim_mode *modes, size_t n, diff_fn fn,
		    void *arg, char *err, size_t errlen, bool *ran)
{
	struct lane ln[FSIM_NR_MODES];
	const char *vals[FSIM_NR_MODES];
	size_t k, j, m, begun = 0;
	int status = 0;

	*ran = false;
	memset(ln, 0, sizeof(ln));
	for (m = 0; m < n; m++) {
		ln[m].opts.mode = modes[m];
		ln[m].vals = malloc(sizeof(*ln[m].vals));
		if (!ln[m].vals) {
			snprintf(err, errlen, "out of memory");
			status = -1;
			goto out;
		}
		if (!run_begin(&ln[m].run, script, i, &ln[m].opts, &ln[m].res)) {
			snprintf(err, errlen, "%s", ln[m].res.message);
			status = ln[m].res.outcome == FSIM_FAIL ? -1 : 0;
			goto out;
		}
		ln[m].run.skip_expects = true;
		begun++;
	}
	*ran = true;
	for (k = 0; k < script->sc[i].nstmts && !status; k++) {
		const struct stmt *st = &script->sc[i].stmts[k];

		if (st->kind == ST_EXPECT || st->kind == ST_MODE || st->kind == ST_ARCH)
			continue;
		for (m = 0; m < n && !status; m++) {
			if (!run_statement(&ln[m].run, st)) {
				snprintf(err, errlen, "%s", ln[m].res.message);
				status = -1;
			}
		}
		if (status)
			break;
		for (m = 0; m < n; m++)
			collect_values(&ln[m].run, ln[m].vals);
		for (j = 0; j < ln[0].vals->n; j++) {
			if (!lanes_differ(ln, n, j))
				continue;
			for (m = 0; m < n; m++)
				vals[m] = ln[m].vals->val[j];
			fn(arg, st, ln[0].vals->key[j], vals);
		}
	}
out:
	for (m = 0; m < begun; m++)
		run_end(&ln[m].run);
	for (m = 0; m < n; m++)
		free(ln[m].vals);
	return status;
}

/* "  12  P munmap R ..." as the trace shows a statement. */
static void statement_text(const struct stmt *st, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%4u  ", st->line);

	if (n >= 0 && (size_t)n < len)
		stmt_format(st, buf + n, len - (size_t)n);
}

struct diff_print {
	FILE *out;
	const struct fsim_script *script;
	const struct stmt *last;
	size_t shown;
};

static void print_diff(void *arg, const struct stmt *st, const char *key,
		       const char *const *vals)
{
	struct diff_print *d = arg;
	char text[256];

	if (d->last != st) {
		statement_text(st, text, sizeof(text));
		fprintf(d->out, "%s\n", text);
		d->last = st;
	}
	fprintf(d->out, "      %-40s %12s | %s\n", key, vals[0], vals[1]);
	d->shown++;
}

int fsim_script_diff(const struct fsim_script *script, size_t i, FILE *out)
{
	return fsim_script_diff_modes(script, i, FSIM_MODE_LEGACY, FSIM_MODE_RFC,
				      out);
}

int fsim_script_diff_modes(const struct fsim_script *script, size_t i,
			   enum fsim_mode from, enum fsim_mode to, FILE *out)
{
	struct diff_print d = { out, script, NULL, 0 };
	const enum fsim_mode modes[2] = { from, to };
	char err[512] = "";
	bool ran;
	int status;

	if (i >= script->n || (unsigned int)from >= FSIM_NR_MODES ||
	    (unsigned int)to >= FSIM_NR_MODES)
		return -1;
	fprintf(out, "scenario %s: values that differ, %s | %s\n",
		script->sc[i].name, fsim_mode_label(from), fsim_mode_label(to));
	status = lockstep(script, i, modes, 2, print_diff, &d, err, sizeof(err), &ran);
	if (!ran)
		fprintf(out, "  %s\n", err);
	else if (status)
		fprintf(out, "  stopped: %s\n", err);
	else if (!d.shown)
		fprintf(out, "  no user-visible value differs\n");
	return status;
}

/* ------------------------------------------------------------------ */
/* foliosim report: Markdown for docs/what-changes.md                  */
/* ------------------------------------------------------------------ */

/* Which /proc reader a value belongs to, for the summary. */
static int reader_of(const char *key)
{
	static const char *const suffix[FSIM_READERS] = {
		"pss_kb", "private_kb", "shared_kb", "anon_pages_kb", "kpagecount",
		"exclusive", "mapmax", "nr_anon_partially_mapped", "rss_kb" };
	int r;

	for (r = 0; r < FSIM_READERS; r++)
		if (strstr(key, suffix[r]))
			return r;
	return -1;
}

struct report {
	FILE *out;
	const struct fsim_script *script;
	const struct stmt *last;
	size_t rows, max_rows, hidden;
	struct fsim_report_totals *totals;
	bool counted[FSIM_READERS][2];	/* per scenario: seen lower/higher */
};

static int numeric(const char *v, long long *out)
{
	char *end;

	if (!strcmp(v, "yes") || !strcmp(v, "no")) {
		*out = !strcmp(v, "yes");
		return 1;
	}
	*out = strtoll(v, &end, 10);
	return *v && !*end;
}

/* Where a difference between 6.12 and the RFC comes from: the base tree
 * (base already reads the RFC's value), the 13 patches (base still reads
 * 6.12's), or both (base reads a third value). */
static const char *attribute(const char *legacy, const char *base,
			     const char *rfc, struct fsim_report_totals *t,
			     int reader)
{
	const bool base_moved = strcmp(legacy, base) != 0;
	const bool series_moved = strcmp(base, rfc) != 0;

	if (!strcmp(legacy, rfc))
		return base_moved ? "base only" : "";
	if (base_moved && !series_moved) {
		if (reader >= 0)
			t->from_base[reader]++;
		return "base tree";
	}
	if (reader >= 0) {
		if (base_moved)
			t->from_both[reader]++;
		else
			t->from_series[reader]++;
	}
	return base_moved ? "both" : "series";
}

static void report_row(void *arg, const struct stmt *st, const char *key,
		       const char *const *vals)
{
	struct report *rp = arg;
	const char *legacy = vals[0], *base = vals[1], *rfc = vals[2], *from;
	long long l, r;
	int reader = reader_of(key);
	char text[256];

	if (reader >= 0 && numeric(legacy, &l) && numeric(rfc, &r) && l != r) {
		const int dir = r > l;

		rp->totals->changes[reader][dir]++;
		if (!rp->counted[reader][dir]) {
			rp->counted[reader][dir] = true;
			rp->totals->scenarios[reader][dir]++;
		}
	}
	from = attribute(legacy, base, rfc, rp->totals,
			 reader >= 0 && numeric(legacy, &l) && numeric(rfc, &r) ?
			 reader : -1);
	if (rp->rows >= rp->max_rows) {
		rp->hidden++;
		return;
	}
	if (rp->last != st) {
		statement_text(st, text, sizeof(text));
		/* "  12  P munmap R ..." -> "12: P munmap R ..." */
		{
			char *t = text;
			unsigned int line = 0;

			while (*t == ' ')
				t++;
			sscanf(t, "%u", &line);
			while (*t && *t != ' ')
				t++;
			while (*t == ' ')
				t++;
			fprintf(rp->out, "| %u: `%s` | %s | %s | %s | %s | %s |\n", line,
				t, key, legacy, base, rfc, from);
		}
		rp->last = st;
	} else {
		fprintf(rp->out, "| | %s | %s | %s | %s | %s |\n", key, legacy, base,
			rfc, from);
	}
	rp->rows++;
}

int fsim_script_report(const struct fsim_script *script, size_t i, FILE *out,
		       struct fsim_report_totals *totals)
{
	enum fsim_mode modes[FSIM_NR_MODES];
	struct report rp;
	char err[512] = "";
	bool ran;
	int status;
	unsigned int m;

	for (m = 0; m < FSIM_NR_MODES; m++)
		modes[m] = fsim_mode_at(m);	/* the columns: legacy, base, rfc */
	memset(&rp, 0, sizeof(rp));
	rp.out = out;
	rp.script = script;
	rp.max_rows = 40;
	rp.totals = totals;
	fprintf(out, "### %s\n\n", script->sc[i].name);
	fprintf(out, "| step | value | 6.12 | base | RFC | from |\n"
		"|---|---|---|---|---|---|\n");
	status = lockstep(script, i, modes, FSIM_NR_MODES, report_row, &rp,
			  err, sizeof(err), &ran);
	if (!ran) {
		fprintf(out, "| | (%s) | | | | |\n", err);
	} else if (status) {
		fprintf(out, "| | (stopped: %s) | | | | |\n", err);
	} else if (!rp.rows) {
		fprintf(out, "| | no user-visible value differs | | | | |\n");
	}
	if (rp.hidden)
		fprintf(out, "| | ... %zu more differing values | | | | |\n", rp.hidden);
	fprintf(out, "\n");
	if (ran)
		totals->scenarios_run++;
	if (rp.rows || rp.hidden)
		totals->scenarios_differing++;
	return status;
}

const char *fsim_report_reader_name(int reader)
{
	static const char *const names[FSIM_READERS] = {
		"Pss (smaps)", "USS = Private (smaps)", "Shared (smaps)",
		"AnonPages (meminfo)", "/proc/kpagecount", "pagemap bit 56 (PM_MMAP_EXCLUSIVE)",
		"numa_maps mapmax", "nr_anon_partially_mapped (deferred split)", "Rss (smaps)" };

	return reader >= 0 && reader < FSIM_READERS ? names[reader] : "?";
}
