// SPDX-License-Identifier: MIT
/* `foliosim report`: the Markdown of docs/what-changes.md, one table per
 * scenario with 6.12, base and RFC side by side, and the totals of the
 * summary (how often and by how much each /proc reader changes). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scenario_values.h"

#define REPORT_ROWS 40	/* per scenario; the rest is counted, not hidden */

struct report {
	FILE *out;
	const struct fsim_script *script;
	size_t index;
	unsigned int last_line;
	size_t rows, hidden;
	struct fsim_report_totals *totals;
};

/* Where a difference between 6.12 and the RFC comes from: the base tree
 * (base already reads the RFC's value), the 13 patches (base still reads
 * 6.12's), or both (base reads a third value). */
static const char *attribute(int64_t legacy, int64_t base, int64_t rfc,
			     struct fsim_report_totals *t, int reader, uint64_t n)
{
	const bool base_moved = legacy != base, series_moved = base != rfc;

	if (legacy == rfc)
		return base_moved ? "base only" : "";
	if (base_moved && !series_moved) {
		if (reader >= 0)
			t->from_base[reader] += n;
		return "base tree";
	}
	if (reader >= 0) {
		if (base_moved)
			t->from_both[reader] += n;
		else
			t->from_series[reader] += n;
	}
	return base_moved ? "both" : "series";
}

/* Keeps the largest difference of the reader, with where it shows. */
static void note_worst(struct fsim_report_totals *t, const struct fsim_diff_value *v,
		       const struct fsim_script *script, size_t i)
{
	const int64_t legacy = v->values[0], rfc = v->values[2];
	const int64_t d = rfc - legacy, mag = d < 0 ? -d : d;
	const int64_t worst = t->worst_abs[v->reader] < 0 ? -t->worst_abs[v->reader]
							  : t->worst_abs[v->reader];
	char label[256], a[32], b[32];

	if (mag <= worst)
		return;
	t->worst_abs[v->reader] = d;
	t->worst_rel[v->reader] = legacy ? 100.0 * (double)d / (double)(legacy < 0 ? -legacy
										  : legacy) : 0;
	fsim_diff_value_label(v, label, sizeof(label));
	fsim_diff_value_text(v, 0, a, sizeof(a));
	fsim_diff_value_text(v, 2, b, sizeof(b));
	/* A long file or scenario name is cut, not an error. */
	if (snprintf(t->worst_where[v->reader], sizeof(t->worst_where[0]),
		     "%s:%u (scenario %s): %s %s -> %s", fsim_script_file(script), v->line,
		     fsim_script_name(script, i), label, a, b) < 0)
		t->worst_where[v->reader][0] = '\0';
}

/* "FILE:LINE (scenario NAME): LABEL" */
static void where_text(char *buf, size_t len, const struct fsim_diff_value *v,
		       const struct fsim_script *script, size_t i)
{
	char label[256];

	fsim_diff_value_label(v, label, sizeof(label));
	if (snprintf(buf, len, "%s:%u (scenario %s): %s", fsim_script_file(script),
		     v->line, fsim_script_name(script, i), label) < 0)
		buf[0] = '\0';
}

/* Keeps the consumer's largest absolute and relative errors. */
static void note_consumer(struct fsim_report_totals *t, const struct fsim_diff_value *v,
			  const struct fsim_script *script, size_t i)
{
	struct fsim_consumer_error *e;
	const int64_t legacy = v->values[0], rfc = v->values[2], d = rfc - legacy;
	const int64_t mag = d < 0 ? -d : d;

	if (v->consumer < 0 || v->consumer >= FSIM_MAX_CONSUMERS || legacy == rfc)
		return;
	e = &t->consumers[v->consumer];
	if (mag > (e->abs < 0 ? -e->abs : e->abs)) {
		e->abs = d;
		e->abs_legacy = legacy;
		e->abs_rfc = rfc;
		where_text(e->abs_where, sizeof(e->abs_where), v, script, i);
	}
	if (legacy > 0) {
		const double rel = 100.0 * (double)d / (double)legacy;

		if ((rel < 0 ? -rel : rel) > (e->rel < 0 ? -e->rel : e->rel)) {
			e->rel = rel;
			e->rel_legacy = legacy;
			e->rel_rfc = rfc;
			where_text(e->rel_where, sizeof(e->rel_where), v, script, i);
		}
	}
}

void fsim_report_scenario_begin(struct fsim_report_totals *t)
{
	memset(t->counted, 0, sizeof(t->counted));
	t->values_in_scenario = 0;
}

const char *fsim_report_add(struct fsim_report_totals *t, const struct fsim_diff_value *v,
			    const struct fsim_script *script, size_t i)
{
	const uint64_t n = v->per_page ? v->last_page - v->first_page + 1 : 1;
	int64_t legacy, base, rfc;
	int dir;

	if (v->nmodes != 3)
		return "";
	legacy = v->values[0];
	base = v->values[1];
	rfc = v->values[2];
	dir = rfc > legacy;
	t->values_in_scenario++;
	note_consumer(t, v, script, i);
	if (v->reader >= 0 && legacy != rfc) {
		t->changes[v->reader][dir] += n;
		if (!t->counted[v->reader][dir]) {
			t->counted[v->reader][dir] = true;
			t->scenarios[v->reader][dir]++;
		}
		note_worst(t, v, script, i);
	}
	return attribute(legacy, base, rfc, t, v->reader, n);
}

void fsim_report_scenario_end(struct fsim_report_totals *t, int status)
{
	if (status != -EOPNOTSUPP)
		t->scenarios_run++;
	if (t->values_in_scenario)
		t->scenarios_differing++;
}

static int report_row(void *arg, const struct fsim_diff_value *v)
{
	struct report *rp = arg;
	char label[256], val[3][32], size[48];
	const char *from;
	size_t m;

	from = fsim_report_add(rp->totals, v, rp->script, rp->index);
	if (rp->rows >= REPORT_ROWS) {
		rp->hidden++;
		return 0;
	}
	fsim_diff_value_label(v, label, sizeof(label));
	for (m = 0; m < 3; m++)
		fsim_diff_value_text(v, m, val[m], sizeof(val[m]));
	diff_size_text(v, 0, 2, size, sizeof(size));
	if (rp->last_line != v->line || !rp->rows)
		fprintf(rp->out, "| %u: `%s` ", v->line, v->statement);
	else
		fprintf(rp->out, "| ");
	fprintf(rp->out, "| %s | %s | %s | %s | %s | %s |\n", label, val[0], val[1],
		val[2], size, from);
	rp->last_line = v->line;
	rp->rows++;
	return 0;
}

int fsim_script_report(const struct fsim_script *script, size_t i, FILE *out,
		       struct fsim_report_totals *totals)
{
	enum fsim_mode modes[FSIM_NR_MODES];
	struct report rp;
	char err[512] = "";
	int status;
	unsigned int m;

	if (!script || i >= script->n || !out || !totals)
		return -1;
	for (m = 0; m < FSIM_NR_MODES; m++)
		modes[m] = fsim_mode_at(m);	/* the columns: legacy, base, rfc */
	memset(&rp, 0, sizeof(rp));
	rp.out = out;
	rp.script = script;
	rp.index = i;
	rp.totals = totals;
	fprintf(out, "### %s\n\n", script->sc[i].name);
	fprintf(out, "| step | value | 6.12 | base | RFC | RFC - 6.12 | from |\n"
		"|---|---|---|---|---|---|---|\n");
	fsim_report_scenario_begin(totals);
	status = fsim_script_compare(script, i, modes, FSIM_NR_MODES, report_row, &rp,
				     err, sizeof(err));
	fsim_report_scenario_end(totals, status);
	if (status == -EOPNOTSUPP)
		fprintf(out, "| | (%s) | | | | | |\n", err);
	else if (status)
		fprintf(out, "| | (stopped: %s) | | | | | |\n", err);
	else if (!rp.rows)
		fprintf(out, "| | no user-visible value differs | | | | | |\n");
	if (rp.hidden)
		fprintf(out, "| | ... and %zu more rows (`foliosim diff` shows all) | | | | | |\n",
			rp.hidden);
	fprintf(out, "\n");
	return status == -EOPNOTSUPP ? 0 : status;
}

const char *fsim_report_reader_name(int reader)
{
	static const char *const names[FSIM_READERS] = {
		"Pss (smaps)", "USS = Private (smaps)", "Shared (smaps)",
		"AnonPages (meminfo)", "/proc/kpagecount", "pagemap bit 56 (PM_MMAP_EXCLUSIVE)",
		"numa_maps mapmax", "nr_anon_partially_mapped (deferred split)", "Rss (smaps)" };

	return reader >= 0 && reader < FSIM_READERS ? names[reader] : "?";
}
