// SPDX-License-Identifier: MIT
/* Lockstep runs of one scenario in several modes (fsim_script_compare()),
 * and `foliosim diff` on top of it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_values.h"

/* One run of a lockstep: its options, result, run and values. */
struct lane {
	struct fsim_run_options opts;
	struct fsim_result res;
	struct run run;
	struct values vals;
};

struct lockstep {
	const struct fsim_script *script;
	size_t index;
	const enum fsim_mode *modes;
	size_t n;
	struct lane ln[FSIM_NR_MODES];
	int64_t cur[FSIM_NR_MODES];	/* the values of the range being built */
	fsim_diff_fn fn;
	void *arg;
	char *err;
	size_t errlen;
};

/* "  12  P munmap R ..." -> the statement's text without its line. */
static void statement_text(const struct stmt *st, char *buf, size_t len)
{
	stmt_format(st, buf, len);
}

/* A range of differing values being built: the key (a dval of lane 0),
 * pages first..last, the values in ls->cur. */
struct open_range {
	const struct dval *id;
	uint64_t first, last;
};

/* Calls fn for the differing range @o. */
static int emit(struct lockstep *ls, const char *text, unsigned int line,
		const struct open_range *o)
{
	const struct dval *d = o->id;
	const struct vkey_def *k = &vkey_defs[d->key];
	const struct run *r = &ls->ln[0].run;
	struct fsim_diff_value v;

	memset(&v, 0, sizeof(v));
	v.line = line;
	v.statement = text;
	v.group = k->group;
	v.subject = d->subject == UINT32_MAX ? NULL : r->syms[d->subject].name;
	v.region = d->region_name;
	v.key = d->key == VK_STAT ? fsim_stat_name((enum fsim_stat)d->aux) :
		d->key == VK_CONSUMER ? fsim_consumer_at(d->aux)->figure : k->name;
	v.consumer = d->key == VK_CONSUMER ? (int)d->aux : -1;
	v.thp_order = d->key == VK_THP_PARTIAL ? d->aux : 0;
	v.per_page = k->per_page;
	v.first_page = o->first;
	v.last_page = o->last;
	v.boolean = k->boolean;
	v.order = k->order;
	v.nmodes = ls->n;
	v.modes = ls->modes;
	v.values = ls->cur;
	v.reader = k->reader;
	return ls->fn(ls->arg, &v);
}

/* Where each lane is: its value, and how many of its pages are behind. */
struct cursor {
	size_t j;
	uint64_t used;
};

/* The next segment all lanes agree on: the same key and the same pages
 * (the shortest of the lanes' runs).  False with ls->err set if the lanes
 * do not line up, which would be a bug: they run the same statements. */
static bool next_segment(struct lockstep *ls, struct cursor *c, int64_t *vals,
			 uint64_t *first, uint64_t *len, unsigned int line)
{
	const struct dval *d0 = &ls->ln[0].vals.v[c[0].j];
	size_t m;

	*first = d0->page + c[0].used;
	*len = d0->npages - c[0].used;
	for (m = 0; m < ls->n; m++) {
		const struct values *v = &ls->ln[m].vals;
		const struct dval *d = c[m].j < v->n ? &v->v[c[m].j] : NULL;

		if (!d || !dval_same_key(d0, d) || d->page + c[m].used != *first) {
			snprintf(ls->err, ls->errlen, "internal: the values of %s and %s "
				 "mode do not line up after line %u",
				 fsim_mode_name(ls->modes[0]), fsim_mode_name(ls->modes[m]),
				 line);
			return false;
		}
		if (d->npages - c[m].used < *len)
			*len = d->npages - c[m].used;
		vals[m] = d->value;
	}
	for (m = 0; m < ls->n; m++) {
		c[m].used += *len;
		if (c[m].used == ls->ln[m].vals.v[c[m].j].npages) {
			c[m].j++;
			c[m].used = 0;
		}
	}
	return true;
}

static bool vals_differ(const int64_t *vals, size_t n)
{
	size_t m;

	for (m = 1; m < n; m++)
		if (vals[m] != vals[0])
			return true;
	return false;
}

/* Compares the lanes' values after @st, merging consecutive pages that
 * differ the same way; nonzero if fn stopped it, -1 on an error. */
static int compare_step(struct lockstep *ls, const struct stmt *st)
{
	struct cursor c[FSIM_NR_MODES];
	int64_t vals[FSIM_NR_MODES];
	struct open_range o = { NULL, 0, 0 };
	char text[512];
	size_t m;
	int stop = 0;

	memset(c, 0, sizeof(c));
	statement_text(st, text, sizeof(text));
	while (!stop && c[0].j < ls->ln[0].vals.n) {
		const struct dval *id = &ls->ln[0].vals.v[c[0].j];
		uint64_t first, len;

		if (!next_segment(ls, c, vals, &first, &len, st->line))
			return -1;
		if (o.id && vkey_defs[id->key].per_page && dval_same_key(o.id, id) &&
		    first == o.last + 1 && !memcmp(vals, ls->cur, ls->n * sizeof(*vals))) {
			o.last = first + len - 1;
			continue;
		}
		if (o.id)
			stop = emit(ls, text, st->line, &o);
		o.id = NULL;
		if (!stop && vals_differ(vals, ls->n)) {
			o.id = id;
			o.first = first;
			o.last = first + len - 1;
			memcpy(ls->cur, vals, ls->n * sizeof(*vals));
		}
	}
	if (!stop && o.id)
		stop = emit(ls, text, st->line, &o);
	for (m = 1; !stop && m < ls->n; m++)
		if (c[m].j != ls->ln[m].vals.n) {
			snprintf(ls->err, ls->errlen, "internal: %s mode has more values "
				 "than %s mode after line %u", fsim_mode_name(ls->modes[m]),
				 fsim_mode_name(ls->modes[0]), st->line);
			return -1;
		}
	return stop;
}

/* Starts a run per mode; -EOPNOTSUPP if the scenario does not run in one
 * of them, -ECANCELED if it failed to start. */
static int begin_lanes(struct lockstep *ls, size_t *begun)
{
	size_t m;

	for (m = 0; m < ls->n; m++) {
		struct lane *l = &ls->ln[m];

		l->opts.mode = ls->modes[m];
		l->vals.limit = FSIM_DIFF_MAX_VALUES;
		if (!run_begin(&l->run, ls->script, ls->index, &l->opts, &l->res)) {
			snprintf(ls->err, ls->errlen, "%s", l->res.message);
			return l->res.outcome == FSIM_FAIL ? -ECANCELED : -EOPNOTSUPP;
		}
		l->run.skip_expects = true;
		(*begun)++;
	}
	return 0;
}

/* Runs statement @st in every lane and collects the values. */
static int step(struct lockstep *ls, const struct stmt *st)
{
	size_t m;
	int e;

	for (m = 0; m < ls->n; m++)
		if (!run_statement(&ls->ln[m].run, st)) {
			snprintf(ls->err, ls->errlen, "%s", ls->ln[m].res.message);
			return -ECANCELED;
		}
	for (m = 0; m < ls->n; m++) {
		e = collect_values(&ls->ln[m].run, &ls->ln[m].vals);
		if (e == -E2BIG) {
			snprintf(ls->err, ls->errlen, "%s:%u: more than %u values to compare "
				 "after this statement (every page of every region counts): "
				 "the diff would not be complete, so it stops here",
				 ls->script->file, st->line, FSIM_DIFF_MAX_VALUES);
			return -E2BIG;
		}
		if (e) {
			snprintf(ls->err, ls->errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

int fsim_script_compare(const struct fsim_script *script, size_t i,
			const enum fsim_mode *modes, size_t nmodes,
			fsim_diff_fn fn, void *arg, char *err, size_t errlen)
{
	struct lockstep ls;
	size_t k, m, begun = 0;
	int status;

	if (!script || i >= script->n || nmodes < 2 || nmodes > FSIM_NR_MODES || !fn ||
	    !err || !errlen) {
		if (err && errlen)
			snprintf(err, errlen, "invalid arguments");
		return -EINVAL;
	}
	for (m = 0; m < nmodes; m++)
		if ((unsigned int)modes[m] >= FSIM_NR_MODES) {
			snprintf(err, errlen, "invalid mode");
			return -EINVAL;
		}
	memset(&ls, 0, sizeof(ls));
	ls.script = script;
	ls.index = i;
	ls.modes = modes;
	ls.n = nmodes;
	ls.fn = fn;
	ls.arg = arg;
	ls.err = err;
	ls.errlen = errlen;
	*err = '\0';
	status = begin_lanes(&ls, &begun);
	for (k = 0; !status && k < script->sc[i].nstmts; k++) {
		struct stmt st;
		char why[400];

		status = stmt_load(script, &script->sc[i], k, &st, why, sizeof(why));
		if (status) {
			snprintf(err, errlen, "%s:%u: %s%s", script->file,
				 stmt_line(script, &script->sc[i], k),
				 status == -ENOMEM ? "" : "internal error: ", why);
			if (status != -ENOMEM)
				status = -ECANCELED;	/* a statement failed */
			break;
		}
		if (st.kind != ST_EXPECT && st.kind != ST_MODE && st.kind != ST_ARCH) {
			status = step(&ls, &st);
			if (!status && compare_step(&ls, &st) < 0)
				status = -ECANCELED;
		}
		for (m = 0; m < begun; m++)
			ls.ln[m].run.st = NULL;
		stmt_release(&st);
	}
	for (m = 0; m < begun; m++)
		run_end(&ls.ln[m].run);
	for (m = 0; m < nmodes; m++)
		values_free(&ls.ln[m].vals);
	return status;
}

void fsim_diff_value_label(const struct fsim_diff_value *v, char *buf, size_t len)
{
	int n = 0;

	if (!len)
		return;
	if (!strcmp(v->group, "consumer"))
		n = snprintf(buf, len, "%s %s %s", v->subject ? v->subject : "system",
			     fsim_consumer_at((size_t)v->consumer)->tool, v->key);
	else if (!strcmp(v->group, "region"))
		n = snprintf(buf, len, "%s %s %s", v->subject, v->region, v->key);
	else if (!strcmp(v->group, "folio"))
		n = snprintf(buf, len, "%s %s", v->subject, v->key);
	else if (!strcmp(v->group, "thp"))
		n = snprintf(buf, len, "thp order=%u %s", v->thp_order, v->key);
	else
		n = snprintf(buf, len, "%s %s", v->group, v->key);
	if (n < 0 || (size_t)n >= len || !v->per_page)
		return;
	if (v->first_page == v->last_page)
		snprintf(buf + n, len - (size_t)n, " page %" PRIu64, v->first_page);
	else
		snprintf(buf + n, len - (size_t)n, " pages %" PRIu64 "-%" PRIu64,
			 v->first_page, v->last_page);
}

void fsim_diff_value_text(const struct fsim_diff_value *v, size_t mode, char *buf,
			  size_t len)
{
	const int64_t x = mode < v->nmodes ? v->values[mode] : 0;

	if (v->boolean)
		snprintf(buf, len, "%s", x ? "yes" : "no");
	else if (v->order && x < 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%" PRId64, x);
}

/* ------------------------------------------------------------------ */
/* foliosim diff: two modes as text                                     */
/* ------------------------------------------------------------------ */

struct diff_print {
	FILE *out;
	unsigned int last_line;
	size_t shown;
};

/* "-511 (-99.8%)": the size of a difference, for numbers. */
void diff_size_text(const struct fsim_diff_value *v, size_t from, size_t to,
		    char *buf, size_t len)
{
	const int64_t a = v->values[from], b = v->values[to];

	if (v->boolean || v->order) {
		if (len)
			buf[0] = '\0';
		return;
	}
	if (a)
		snprintf(buf, len, "%+" PRId64 " (%+.1f%%)", b - a,
			 100.0 * (double)(b - a) / (double)(a < 0 ? -a : a));
	else
		snprintf(buf, len, "%+" PRId64, b - a);
}

static int print_diff(void *arg, const struct fsim_diff_value *v)
{
	struct diff_print *d = arg;
	char label[256], a[32], b[32], size[48];

	if (d->last_line != v->line || !d->shown)
		fprintf(d->out, "%6u  %s\n", v->line, v->statement);
	d->last_line = v->line;
	fsim_diff_value_label(v, label, sizeof(label));
	fsim_diff_value_text(v, 0, a, sizeof(a));
	fsim_diff_value_text(v, 1, b, sizeof(b));
	diff_size_text(v, 0, 1, size, sizeof(size));
	fprintf(d->out, "        %-44s %10s | %-10s%s%s\n", label, a, b, *size ? " " : "",
		size);
	d->shown++;
	return 0;
}

int fsim_script_diff(const struct fsim_script *script, size_t i, FILE *out)
{
	return fsim_script_diff_modes(script, i, FSIM_MODE_LEGACY, FSIM_MODE_RFC,
				      out);
}

int fsim_script_diff_modes(const struct fsim_script *script, size_t i,
			   enum fsim_mode from, enum fsim_mode to, FILE *out)
{
	struct diff_print d = { out, 0, 0 };
	const enum fsim_mode modes[2] = { from, to };
	char err[512] = "";
	int status;

	if (!script || i >= script->n || (unsigned int)from >= FSIM_NR_MODES ||
	    (unsigned int)to >= FSIM_NR_MODES || !out)
		return -EINVAL;
	fprintf(out, "scenario %s: values that differ, %s | %s\n",
		script->sc[i].name, fsim_mode_label(from), fsim_mode_label(to));
	status = fsim_script_compare(script, i, modes, 2, print_diff, &d, err,
				     sizeof(err));
	if (status == -EOPNOTSUPP)
		fprintf(out, "  %s\n", err);
	else if (status)
		fprintf(out, "  stopped: %s\n", err);
	else if (!d.shown)
		fprintf(out, "  no user-visible value differs\n");
	return status == -EOPNOTSUPP ? 0 : status;
}
