// SPDX-License-Identifier: MIT
/*
 * The cost of a scenario, estimated from its statements (fsim_script_cost()):
 * what the fuzz target bounds before it runs a scenario, and what kunit-gen
 * writes into the KUnit table as each scenario's rmap work.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/scenario.h"

static unsigned long long add_sat(unsigned long long a, unsigned long long b)
{
	return a + b < a ? ~0ULL : a + b;
}

static unsigned long long mul_sat(unsigned long long a, unsigned long long b)
{
	return a && b > ~0ULL / a ? ~0ULL : a * b;
}

static unsigned long long value(const struct fsim_stmt_view *v, const char *key)
{
	unsigned long long n = 0;
	const char *s = fsim_stmt_value(v, key);

	return s && fsim_parse_size(s, &n) ? n : 0;
}

/* The folios declared so far and their orders, for new-anon's work. */
struct orders {
	const char **name;
	unsigned long long *order;
	size_t n;
};

static unsigned long long order_of(const struct orders *o, const char *name)
{
	size_t i;

	for (i = o->n; i-- > 0;)
		if (!strcmp(o->name[i], name))
			return o->order[i];
	return 0;
}

/* Per-page rmap updates of one execution of @v. */
static unsigned long long rmap_work(const struct fsim_stmt_view *v,
				    const struct orders *o)
{
	const char *kw = v->keyword;
	unsigned long long per = 1;
	size_t i;

	if (!strcmp(kw, "mm") || !strcmp(kw, "mmdrop")) {
		per = 1024;	/* mm_alloc()/mmput(): a few page allocations */
	} else if (!strcmp(kw, "new-anon") && v->nwords) {
		unsigned long long order = order_of(o, v->words[0]);

		per = 1ULL << (order < 63 ? order : 63);
	} else if (!strcmp(kw, "add") || !strcmp(kw, "remove") || !strcmp(kw, "dup")) {
		const char *level = fsim_stmt_value(v, "level");

		per = level && !strcmp(level, "pte") ? value(v, "nr") : 1;
	} else if (!strcmp(kw, "expect")) {
		for (i = 0; i < v->nargs; i++)
			if (v->args[i].indexed)
				per = add_sat(per, v->args[i].hi - v->args[i].lo);
	}
	return mul_sat(v->repeat, per ? per : 1);
}

static unsigned long long pages_of(const struct fsim_stmt_view *v)
{
	unsigned long long n = value(v, "order");

	if (!strcmp(v->keyword, "folio"))
		return n > 62 ? ~0ULL : 1ULL << n;
	if (!strcmp(v->keyword, "mmap"))
		return value(v, "size") >> 10;
	return 0;
}

int fsim_script_cost(const struct fsim_script *s, size_t i, unsigned int modes,
		     struct fsim_cost *out)
{
	struct orders o = { NULL, NULL, 0 };
	struct fsim_stmt_view v;
	size_t k, n;
	int err = 0;

	if (!s || !out || i >= fsim_script_count(s))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->processes = 1;
	n = fsim_script_statements(s, i);
	o.name = calloc(n + 1, sizeof(*o.name));
	o.order = calloc(n + 1, sizeof(*o.order));
	if (!o.name || !o.order)
		err = -ENOMEM;
	for (k = 0; !err && k < n; k++) {
		if (fsim_script_statement(s, i, k, &v))
			break;
		out->steps = add_sat(out->steps, add_sat(1, v.repeat));
		if (v.repeat > out->max_repeat)
			out->max_repeat = v.repeat;
		out->pages = add_sat(out->pages, pages_of(&v));
		out->processes += !strcmp(v.keyword, "process") || !strcmp(v.keyword, "fork");
		if (!strcmp(v.keyword, "folio") && v.nwords) {
			o.name[o.n] = v.words[0];
			o.order[o.n++] = value(&v, "order");
		}
		if (!strcmp(v.keyword, "mode") || !strcmp(v.keyword, "arch") ||
		    (modes && v.expect_mode >= 0 && !((modes >> v.expect_mode) & 1)))
			continue;
		out->rmap_work = add_sat(out->rmap_work, rmap_work(&v, &o));
	}
	out->check_work = mul_sat(mul_sat(out->steps, add_sat(out->pages, 1)),
				  out->processes);
	free(o.name);
	free(o.order);
	return err;
}
