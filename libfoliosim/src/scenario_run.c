// SPDX-License-Identifier: MIT
/* Running a parsed scenario in the model: rmap statements, `fails=`,
 * expectations, the invariant check after every statement, the trace. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/process.h"
#include "internal.h"
#include "scenario_internal.h"


enum sym_kind { SYM_MM, SYM_FOLIO, SYM_PROCESS };

struct sym {
	char *name;
	enum sym_kind kind;
	void *obj;		/* struct fsim_mm *, fsim_folio * or fsim_process * */
	bool dead;		/* freed / dropped / exited */
};

struct run {
	const struct fsim_script *script;
	const struct scenario *sc;
	const struct fsim_run_options *opts;
	struct fsim_ctx *ctx;
	struct sym *syms;
	size_t nsyms;
	struct fsim_result *res;
	const struct stmt *st;
	bool skip_expects;	/* foliosim diff: expectations are per mode */
	/* Counter values at the start, for thp/vmstat deltas. */
	int64_t thp0[32][FSIM_THP_NR_COUNTERS];
	uint64_t split0;
};

static bool fail(struct run *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->res->outcome = FSIM_FAIL;
	snprintf(r->res->message, sizeof(r->res->message), "%s:%u: %s",
		 r->script->file, r->st ? r->st->line : r->sc->line, msg);
	return false;
}

static struct sym *lookup(struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nsyms; i++)
		if (!strcmp(r->syms[i].name, name))
			return &r->syms[i];
	return NULL;
}

static bool declare(struct run *r, const char *name, enum sym_kind kind, void *obj)
{
	struct sym *s = lookup(r, name);
	void *mem;

	if (s && !s->dead)
		return fail(r, "'%s' is already declared", name);
	if (s) {	/* a freed name may be declared again */
		s->kind = kind;
		s->obj = obj;
		s->dead = false;
		return true;
	}
	mem = realloc(r->syms, (r->nsyms + 1) * sizeof(*r->syms));
	if (!mem)
		return fail(r, "out of memory");
	r->syms = mem;
	s = &r->syms[r->nsyms++];
	s->name = malloc(strlen(name) + 1);
	if (!s->name)
		return fail(r, "out of memory");
	strcpy(s->name, name);
	s->kind = kind;
	s->obj = obj;
	s->dead = false;
	return true;
}

static struct fsim_mm *get_mm(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_MM) {
		fail(r, s ? "'%s' is not an mm" : "unknown mm '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "mm '%s' was dropped", name);
		return NULL;
	}
	return s->obj;
}

static struct fsim_folio *get_folio(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_FOLIO) {
		fail(r, s ? "'%s' is not a folio" : "unknown folio '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "folio '%s' was freed", name);
		return NULL;
	}
	return s->obj;
}

static const char *mm_name(struct run *r, unsigned int id, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].kind == SYM_MM && !r->syms[i].dead &&
		    fsim_mm_id(r->syms[i].obj) == id)
			return r->syms[i].name;
	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].kind == SYM_PROCESS && !r->syms[i].dead &&
		    fsim_mm_id(fsim_process_mm(r->syms[i].obj)) == id)
			return r->syms[i].name;
	snprintf(buf, len, "#%u", id);
	return buf;
}

static unsigned long num(const struct stmt *st, const char *key, unsigned long dflt)
{
	const struct arg *a = stmt_arg(st, key);
	unsigned long long v;

	if (!a || !scn_parse_uint(a->value, &v))
		return dflt;
	return v > ULONG_MAX ? ULONG_MAX : (unsigned long)v;
}

static bool flag(const struct stmt *st, const char *key, bool dflt)
{
	const struct arg *a = stmt_arg(st, key);
	bool v;

	if (!a || !scn_parse_bool(a->value, &v))
		return dflt;
	return v;
}

static enum fsim_level level_of(const struct stmt *st)
{
	const char *v = stmt_arg(st, "level")->value;

	return !strcmp(v, "pud") ? FSIM_LEVEL_PUD :
	       !strcmp(v, "pmd") ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
}

/* ------------------------------------------------------------------ */
/* Rmap statements                                                     */
/* ------------------------------------------------------------------ */

/* Executes one rmap statement once; returns the call's result (0/-E) or
 * 1 after a scenario error already recorded by fail(). */
static int exec_rmap(struct run *r, const struct stmt *st, struct fsim_folio **touched)
{
	struct fsim_folio *f = NULL;
	struct fsim_mm *mm, *src;
	int err;

	*touched = NULL;
	switch (st->kind) {
	case ST_MM:
		err = fsim_mm_create(r->ctx, (unsigned int)num(st, "id", 0), &mm);
		if (!err && !declare(r, st->words[0], SYM_MM, mm))
			return 1;
		return err;
	case ST_MMDROP: {
		struct sym *s = lookup(r, st->words[0]);

		if (!get_mm(r, st->words[0]))
			return 1;
		err = fsim_mm_destroy(s->obj);
		if (!err)
			s->dead = true;
		return err;
	}
	case ST_FOLIO: {
		const char *k = st->words[1];
		const bool hugetlb = st->nwords == 3 && !strcmp(st->words[2], "hugetlb");
		enum fsim_kind kind = !strcmp(k, "anon") ? FSIM_KIND_ANON :
				      !strcmp(k, "shmem") || (st->nwords == 3 && !hugetlb) ?
				      FSIM_KIND_SHMEM : FSIM_KIND_FILE;
		const unsigned int order = (unsigned int)num(st, "order", 0);

		err = hugetlb ? fsim_folio_create_hugetlb(r->ctx, order, kind, &f)
			      : fsim_folio_create(r->ctx, order, kind, &f);
		if (!err && !declare(r, st->words[0], SYM_FOLIO, f))
			return 1;
		*touched = f;
		return err;
	}
	default:
		break;
	}
	f = get_folio(r, st->words[0]);
	if (!f)
		return 1;
	*touched = f;
	switch (st->kind) {
	case ST_NEW_ANON:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_add_new_anon_rmap(f, mm, flag(st, "exclusive", true));
	case ST_ADD:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_add_anon_rmap(f, mm, level_of(st), num(st, "page", 0),
							num(st, "nr", 0),
							flag(st, "exclusive", false));
		if (stmt_arg(st, "exclusive") && flag(st, "exclusive", false))
			return -EINVAL;	/* RMAP_EXCLUSIVE is for anon folios */
		return fsim_folio_add_file_rmap(f, mm, level_of(st), num(st, "page", 0),
						num(st, "nr", 0));
	case ST_REMOVE:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_remove_rmap(f, mm, level_of(st), num(st, "page", 0),
					      num(st, "nr", 0));
	case ST_DUP:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)) ||
		    !(src = get_mm(r, stmt_arg(st, "src")->value)))
			return 1;
		if (fsim_folio_kind(f) == FSIM_KIND_ANON)
			return fsim_folio_try_dup_anon_rmap(f, mm, src, level_of(st),
							    num(st, "page", 0), num(st, "nr", 0));
		return fsim_folio_dup_file_rmap(f, mm, src, level_of(st),
						num(st, "page", 0), num(st, "nr", 0));
	case ST_PIN:
		if (!(mm = get_mm(r, stmt_arg(st, "mm")->value)))
			return 1;
		return fsim_folio_pin(f, mm, (unsigned int)num(st, "n", 1));
	case ST_UNPIN:
		return fsim_folio_unpin(f, (unsigned int)num(st, "n", 1));
	case ST_FREE: {
		struct fsim_violation v;

		err = fsim_folio_free(f);
		if (err == -EFAULT) {
			folio_free_checks(f, &v);
			fail(r, "free %s: %s: %s", st->words[0], v.invariant, v.detail);
			return 1;
		}
		if (!err) {
			lookup(r, st->words[0])->dead = true;
			*touched = NULL;
		}
		return err;
	}
	default:
		return fail(r, "internal: not an rmap statement"), 1;
	}
}

/* Runs an rmap statement (repeat times) with its `fails=` contract. */
static bool run_rmap(struct run *r, const struct stmt *st, struct fsim_folio **touched)
{
	unsigned long i;

	for (i = 0; i < st->repeat; i++) {
		struct fsim_folio *f = NULL;
		uint64_t before = 0;
		int err;

		if (st->fails && st->kind != ST_MM && st->kind != ST_MMDROP &&
		    st->kind != ST_FOLIO) {
			struct sym *s = lookup(r, st->words[0]);

			if (s && s->kind == SYM_FOLIO && !s->dead)
				before = fsim_folio_state_digest(s->obj);
		}
		err = exec_rmap(r, st, &f);
		if (err == 1)
			return false;
		*touched = f;
		if (!st->fails && err)
			return fail(r, "the call was refused with %s", fsim_errname(err));
		if (st->fails && !err)
			return fail(r, "expected the call to fail with %s, it succeeded",
				    fsim_errname(st->fails));
		if (st->fails && err != st->fails)
			return fail(r, "expected the call to fail with %s, it failed with %s",
				    fsim_errname(st->fails), fsim_errname(err));
		if (st->fails && f && fsim_folio_state_digest(f) != before)
			return fail(r, "the refused call changed the folio's state");
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Expectations                                                        */
/* ------------------------------------------------------------------ */

static const char *yn(bool b)
{
	return b ? "yes" : "no";
}

static void slot_value(struct run *r, struct fsim_folio *f, int idx, char *buf, size_t len)
{
	struct fsim_slot s[2];
	char tmp[24];

	if (fsim_folio_slots(f, s, NULL) || s[idx].mm_id == 0) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s:%d", mm_name(r, s[idx].mm_id, tmp, sizeof(tmp)),
		 s[idx].mapcount);
}

/* The value of a folio key (for page `page` if indexed), as text.  Returns
 * false (after fail()) when the key makes no sense here. */
static bool folio_value(struct run *r, struct fsim_folio *f, const char *key,
			unsigned long page, char *buf, size_t len)
{
	const struct fsim_backend *ops = r->ctx->ops;
	bool shared;
	struct fsim_slot s[2];

	if (!strcmp(key, "mapcount"))
		snprintf(buf, len, "%d", fsim_folio_mapcount(f));
	else if (!strcmp(key, "total_mapped_pages"))
		snprintf(buf, len, "%" PRIu64, fsim_folio_total_mapped_pages(f));
	else if (!strcmp(key, "avg_mapcount"))
		snprintf(buf, len, "%lu", fsim_folio_average_page_mapcount(f));
	else if (!strcmp(key, "mapped"))
		snprintf(buf, len, "%s", yn(fsim_folio_mapped(f)));
	else if (!strcmp(key, "maybe_shared"))
		snprintf(buf, len, "%s", yn(fsim_folio_maybe_mapped_shared(f)));
	else if (!strcmp(key, "partially_mapped"))
		snprintf(buf, len, "%s", yn(fsim_folio_partially_mapped(f)));
	else if (!strcmp(key, "deferred"))
		snprintf(buf, len, "%s", yn(fsim_folio_on_deferred_split(f)));
	else if (!strcmp(key, "pincount"))
		snprintf(buf, len, "%d", fsim_folio_pincount(f));
	else if (!strcmp(key, "refcount"))
		snprintf(buf, len, "%lld", (long long)fsim_folio_refcount(f));
	else if (!strcmp(key, "true_mapcount"))
		snprintf(buf, len, "%" PRIu64, fsim_oracle_true_mapcount(f, page));
	else if (!strcmp(key, "kpagecount"))
		snprintf(buf, len, "%" PRIu64, fsim_kpagecount(f, page));
	else if (!strcmp(key, "exclusive"))
		snprintf(buf, len, "%s", yn(fsim_pagemap_exclusive(f, page)));
	else if (!strcmp(key, "anon_exclusive"))
		snprintf(buf, len, "%s", yn(fsim_folio_anon_exclusive(f, page)));
	else if (!strcmp(key, "mapmax"))
		snprintf(buf, len, "%lu", fsim_numa_mapmax(f, page));
	else if (!strcmp(key, "slot0") || !strcmp(key, "slot1") ||
		 !strcmp(key, "shared_bit")) {
		if (!ops->has_mm_slots)
			return fail(r, "%s: %s mode has no mm slots (use expect[base] or expect[rfc])",
				    key, ops->name);
		if (!strcmp(key, "shared_bit")) {
			if (fsim_folio_slots(f, s, &shared))
				shared = false;
			snprintf(buf, len, "%s", yn(shared));
		} else {
			slot_value(r, f, key[4] - '0', buf, len);
		}
	} else if (!strcmp(key, "entire_mapcount") || !strcmp(key, "nr_pages_mapped")) {
		if (!ops->entire_mapcount)
			return fail(r, "%s: a 6.12 counter the RFC removes (use expect[legacy] or expect[base])",
				    key);
		snprintf(buf, len, "%d", key[0] == 'e' ? fsim_folio_entire_mapcount(f)
						      : fsim_folio_nr_pages_mapped(f));
	} else {
		return fail(r, "unknown folio key '%s'", key);
	}
	return true;
}

static bool compare(struct run *r, const char *key, const char *want, const char *got)
{
	if (!strcmp(want, got))
		return true;
	return fail(r, "expected %s=%s, got %s", key, want, got);
}

static bool expect_folio(struct run *r, const struct stmt *st)
{
	struct fsim_folio *f = get_folio(r, st->words[0]);
	char got[64], key[96];
	size_t i;

	if (!f)
		return false;
	for (i = 0; i < st->nargs; i++) {
		const struct arg *a = &st->args[i];
		unsigned long p;

		if (!a->indexed) {
			if (!folio_value(r, f, a->key, 0, got, sizeof(got)) ||
			    !compare(r, a->key, a->value, got))
				return false;
			continue;
		}
		if (a->hi > fsim_folio_nr_pages(f))
			return fail(r, "%s[%lu:%lu]: the folio has %lu pages", a->key,
				    a->lo, a->hi, fsim_folio_nr_pages(f));
		for (p = a->lo; p < a->hi; p++) {
			if (!folio_value(r, f, a->key, p, got, sizeof(got)))
				return false;
			if (strcmp(a->value, got)) {
				snprintf(key, sizeof(key), "%s[%lu]", a->key, p);
				return compare(r, key, a->value, got);
			}
		}
	}
	return true;
}

static bool expect_counter(struct run *r, const char *key, const char *want, int64_t got)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)got);
	return compare(r, key, want, buf);
}

static bool expect_stats(struct run *r, const struct stmt *st)
{
	size_t i;
	int s;

	for (i = 0; i < st->nargs; i++) {
		for (s = 0; s < FSIM_NR_STATS; s++)
			if (!strcmp(st->args[i].key, fsim_stat_name((enum fsim_stat)s)))
				break;
		if (!expect_counter(r, st->args[i].key, st->args[i].value,
				    fsim_ctx_stat(r->ctx, (enum fsim_stat)s)))
			return false;
	}
	return true;
}

static bool expect_thp(struct run *r, const struct stmt *st)
{
	static const char *const names[] = { "nr_anon", "nr_anon_partially_mapped",
					     "split_deferred" };
	unsigned int order = (unsigned int)num(st, "order", fsim_ctx_arch(r->ctx)->pmd_order);
	size_t i;
	int c;

	if (order < 1 || order > fsim_ctx_arch(r->ctx)->pmd_order)
		return fail(r, "thp: order %u has no per-size counters (1..%u)", order,
			    fsim_ctx_arch(r->ctx)->pmd_order);
	for (i = 0; i < st->nargs; i++) {
		if (!strcmp(st->args[i].key, "order"))
			continue;
		for (c = 0; c < FSIM_THP_NR_COUNTERS; c++)
			if (!strcmp(st->args[i].key, names[c]))
				break;
		if (!expect_counter(r, st->args[i].key, st->args[i].value,
				    fsim_ctx_thp_counter(r->ctx, order,
							 (enum fsim_thp_counter)c) -
				    r->thp0[order][c]))
			return false;
	}
	return true;
}


/* ------------------------------------------------------------------ */
/* Process statements                                                  */
/* ------------------------------------------------------------------ */

static struct fsim_process *get_process(struct run *r, const char *name)
{
	struct sym *s = lookup(r, name);

	if (!s || s->kind != SYM_PROCESS) {
		fail(r, s ? "'%s' is not a process" : "unknown process '%s'", name);
		return NULL;
	}
	if (s->dead) {
		fail(r, "process '%s' has exited", name);
		return NULL;
	}
	return s->obj;
}

static uint64_t size_arg(const struct stmt *st, const char *key, uint64_t dflt)
{
	const struct arg *a = stmt_arg(st, key);
	unsigned long long v;

	if (!a || !scn_parse_size(a->value, &v))
		return dflt;
	return v;
}

/* Default range of touch/read: from off to the region's end. */
static bool region_bytes(struct run *r, struct fsim_process *p, const char *region,
			 uint64_t *bytes)
{
	if (fsim_process_region_size(p, region, bytes))
		return fail(r, "unknown region '%s'", region);
	return true;
}

static const char *proc_err(int err)
{
	switch (err) {
	case -EFAULT:
		return "outside a live mapping (the process would get SIGSEGV)";
	case -EEXIST:
		return "the region exists already";
	case -EINVAL:
		return "bad region, size, order or range (page-aligned, inside the region)";
	default:
		return fsim_errname(err);
	}
}

static bool run_process_op(struct run *r, const struct stmt *st)
{
	const char *verb = st->words[1], *region = st->nwords > 2 ? st->words[2] : NULL;
	struct fsim_process *p = get_process(r, st->words[0]), *child;
	uint64_t off, len, bytes;
	int err = 0;

	if (!p)
		return false;
	if (!strcmp(verb, "mmap")) {
		err = fsim_process_mmap(p, region, size_arg(st, "size", 0),
					st->nwords == 4 && !strcmp(st->words[3], "shmem"),
					(unsigned int)num(st, "order", 0));
	} else if (!strcmp(verb, "touch") || !strcmp(verb, "read")) {
		if (!region_bytes(r, p, region, &bytes))
			return false;
		off = size_arg(st, "off", 0);
		len = size_arg(st, "len", bytes > off ? bytes - off : 0);
		err = fsim_process_access(p, region, off, len, verb[0] == 't');
	} else if (!strcmp(verb, "munmap")) {
		err = fsim_process_munmap(p, region, size_arg(st, "off", 0),
					  size_arg(st, "len", 0));
	} else if (!strcmp(verb, "dontneed")) {
		err = fsim_process_dontneed(p, region, size_arg(st, "off", 0),
					    size_arg(st, "len", 0));
	} else if (!strcmp(verb, "fork")) {
		err = fsim_process_fork(p, &child);
		if (!err && !declare(r, st->words[2], SYM_PROCESS, child)) {
			fsim_process_exit(child);
			return false;
		}
	} else if (!strcmp(verb, "exit")) {
		err = fsim_process_exit(p);
		if (!err)
			lookup(r, st->words[0])->dead = true;
	}
	if (err)
		return fail(r, "%s %s: %s", st->words[0], verb, proc_err(err));
	return true;
}

static bool region_value(struct run *r, struct fsim_process *p, const char *region,
			 const char *key, char *buf, size_t len)
{
	struct fsim_smaps_kb kb;
	const char *at = strchr(key, '@');

	if (fsim_process_smaps_kb(p, region, &kb))
		return fail(r, "unknown region '%s'", region);
	if (at) {
		unsigned long long off;
		struct fsim_page_view v;

		scn_parse_size(at + 1, &off);
		if (fsim_process_page(p, region, off, &v))
			return fail(r, "%s: offset outside the region", key);
		if (!strncmp(key, "kpagecount@", 11))
			snprintf(buf, len, "%llu", (unsigned long long)v.kpagecount);
		else if (!strncmp(key, "exclusive@", 10))
			snprintf(buf, len, "%s", yn((v.present || v.zero_page) && v.pm_exclusive));
		else if (v.present)
			snprintf(buf, len, "%u", fsim_folio_order(v.folio));
		else
			snprintf(buf, len, "none");
		return true;
	}
	if (!strcmp(key, "rss_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.rss);
	else if (!strcmp(key, "pss_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.pss);
	else if (!strcmp(key, "private_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.private_total);
	else if (!strcmp(key, "shared_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.shared_total);
	else if (!strcmp(key, "anon_huge_kb"))
		snprintf(buf, len, "%llu", (unsigned long long)kb.anon_huge);
	else if (!strcmp(key, "mapmax")) {
		unsigned long m;

		fsim_process_mapmax(p, region, &m);
		snprintf(buf, len, "%lu", m);
	} else
		return fail(r, "unknown region key '%s'", key);
	return true;
}

static bool expect_region(struct run *r, const struct stmt *st)
{
	struct fsim_process *p = get_process(r, st->words[0]);
	char got[48];
	size_t i;

	if (!p)
		return false;
	for (i = 0; i < st->nargs; i++)
		if (!region_value(r, p, st->words[1], st->args[i].key, got, sizeof(got)) ||
		    !compare(r, st->args[i].key, st->args[i].value, got))
			return false;
	return true;
}

static int64_t anon_pages_kb(struct run *r)
{
	return fsim_ctx_stat(r->ctx, FSIM_NR_ANON_MAPPED) <<
	       (fsim_ctx_arch(r->ctx)->page_shift - 10);
}

static bool run_expect(struct run *r, const struct stmt *st)
{
	const char *t = st->words[0];

	if (st->expect_mode >= 0 && st->expect_mode != (int)fsim_ctx_mode(r->ctx))
		return true;
	if (!strcmp(t, "stats"))
		return expect_stats(r, st);
	if (!strcmp(t, "thp"))
		return expect_thp(r, st);
	if (!strcmp(t, "vmstat"))
		return expect_counter(r, "thp_deferred_split_page", st->args[0].value,
				      (int64_t)(fsim_ctx_thp_deferred_split_page(r->ctx) -
						r->split0));
	if (!strcmp(t, "meminfo"))
		return expect_counter(r, "anon_pages_kb", st->args[0].value, anon_pages_kb(r));
	if (st->nwords == 2)
		return expect_region(r, st);
	return expect_folio(r, st);
}

/* ------------------------------------------------------------------ */
/* The trace of `foliosim run`                                         */
/* ------------------------------------------------------------------ */

static void trace_statement(struct run *r, const struct stmt *st)
{
	size_t i;

	fprintf(r->opts->trace, "%4u  %s", st->line, st->repeat > 1 ? "repeat " : "");
	if (st->repeat > 1)
		fprintf(r->opts->trace, "%lu ", st->repeat);
	switch (st->kind) {
	case ST_MM: fputs("mm", r->opts->trace); break;
	case ST_MMDROP: fputs("mmdrop", r->opts->trace); break;
	case ST_FOLIO: fputs("folio", r->opts->trace); break;
	case ST_NEW_ANON: fputs("new-anon", r->opts->trace); break;
	case ST_ADD: fputs("add", r->opts->trace); break;
	case ST_REMOVE: fputs("remove", r->opts->trace); break;
	case ST_DUP: fputs("dup", r->opts->trace); break;
	case ST_PIN: fputs("pin", r->opts->trace); break;
	case ST_UNPIN: fputs("unpin", r->opts->trace); break;
	case ST_FREE: fputs("free", r->opts->trace); break;
	case ST_EXPECT:
		if (st->expect_mode < 0)
			fputs("expect", r->opts->trace);
		else
			fprintf(r->opts->trace, "expect[%s]",
				fsim_mode_name((enum fsim_mode)st->expect_mode));
		break;
	default: break;
	}
	for (i = 0; i < st->nwords; i++)
		fprintf(r->opts->trace, " %s", st->words[i]);
	for (i = 0; i < st->nargs; i++) {
		if (st->args[i].indexed)
			fprintf(r->opts->trace, " %s[%lu:%lu]=%s", st->args[i].key,
				st->args[i].lo, st->args[i].hi, st->args[i].value);
		else
			fprintf(r->opts->trace, " %s=%s", st->args[i].key, st->args[i].value);
	}
	fputc('\n', r->opts->trace);
}

static void trace_folio(struct run *r, const char *name, struct fsim_folio *f)
{
	char s0[48], s1[48];
	struct fsim_slot slots[2];
	FILE *t = r->opts->trace;

	fprintf(t, "      %-6s order %-2u mapcount %-6d total %-8" PRIu64 " avg %-3lu "
		"shared %-3s partial %-3s pins %d",
		name, fsim_folio_order(f), fsim_folio_mapcount(f),
		fsim_folio_total_mapped_pages(f), fsim_folio_average_page_mapcount(f),
		yn(fsim_folio_maybe_mapped_shared(f)), yn(fsim_folio_partially_mapped(f)),
		fsim_folio_pincount(f));
	if (!fsim_folio_slots(f, slots, NULL)) {
		slot_value(r, f, 0, s0, sizeof(s0));
		slot_value(r, f, 1, s1, sizeof(s1));
		fprintf(t, " slots [%s, %s]", s0, s1);
	}
	if (fsim_folio_entire_mapcount(f) >= 0)
		fprintf(t, " entire %d nr_pages_mapped %d",
			fsim_folio_entire_mapcount(f), fsim_folio_nr_pages_mapped(f));
	fputc('\n', t);
}

static void trace_stats(struct run *r)
{
	int s;

	fprintf(r->opts->trace, "      stats");
	for (s = 0; s < FSIM_NR_STATS; s++)
		fprintf(r->opts->trace, " %s=%lld", fsim_stat_name((enum fsim_stat)s),
			(long long)fsim_ctx_stat(r->ctx, (enum fsim_stat)s));
	fputc('\n', r->opts->trace);
}

/* After a process statement: a table per live process and the folios. */
struct folio_list {
	struct fsim_folio *f[64];
	size_t n;
	bool more;
};

static void collect_folio(void *arg, struct fsim_folio *f)
{
	struct folio_list *l = arg;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->f[i] == f)
			return;
	if (l->n < 64)
		l->f[l->n++] = f;
	else
		l->more = true;
}

struct region_names {
	const char *name[64];
	size_t n;
};

static void add_region_name(void *arg, const char *name)
{
	struct region_names *rn = arg;

	if (rn->n < 64)
		rn->name[rn->n++] = name;
}

static void regions_of(struct run *r, struct fsim_process *p, struct region_names *rn)
{
	(void)r;
	rn->n = 0;
	fsim_process_regions(p, add_region_name, rn);
}

static void trace_processes(struct run *r)
{
	FILE *t = r->opts->trace;
	struct folio_list fl = { { NULL }, 0, false };
	size_t k, i;

	fprintf(t, "      %-8s %-8s %8s %8s %8s %8s %8s\n", "process", "region",
		"Rss", "Pss", "Private", "Shared", "AnonHuge");
	for (k = 0; k < r->nsyms; k++) {
		struct region_names rn;

		if (r->syms[k].kind != SYM_PROCESS || r->syms[k].dead)
			continue;
		regions_of(r, r->syms[k].obj, &rn);
		for (i = 0; i < rn.n; i++) {
			struct fsim_smaps_kb kb;

			fsim_process_smaps_kb(r->syms[k].obj, rn.name[i], &kb);
			fprintf(t, "      %-8s %-8s %6llukB %6llukB %6llukB %6llukB %6llukB\n",
				r->syms[k].name, rn.name[i], (unsigned long long)kb.rss,
				(unsigned long long)kb.pss,
				(unsigned long long)kb.private_total,
				(unsigned long long)kb.shared_total,
				(unsigned long long)kb.anon_huge);
			fsim_process_region_folios(r->syms[k].obj, rn.name[i],
						   collect_folio, &fl);
		}
	}
	for (i = 0; i < fl.n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "folio%zu", i);
		trace_folio(r, name, fl.f[i]);
	}
	if (fl.more)
		fprintf(t, "      (more folios not shown)\n");
	fprintf(t, "      meminfo AnonPages %lld kB\n", (long long)anon_pages_kb(r));
}

static bool run_statement(struct run *r, const struct stmt *st)
{
	struct fsim_folio *touched = NULL;
	struct fsim_violation v;
	bool ok;

	r->st = st;
	if (r->opts->trace && st->kind != ST_MODE && st->kind != ST_ARCH)
		trace_statement(r, st);
	switch (st->kind) {
	case ST_MODE:
	case ST_ARCH:
		return true;
	case ST_EXPECT:
		if (r->skip_expects)
			return true;
		ok = run_expect(r, st);
		if (ok && r->opts->trace)
			fprintf(r->opts->trace, "      ok\n");
		return ok;
	case ST_PROCESS: {
		struct fsim_process *p;
		int err = fsim_process_create(r->ctx, &p);

		if (err)
			return fail(r, "process %s: %s", st->words[0], fsim_errname(err));
		if (!declare(r, st->words[0], SYM_PROCESS, p)) {
			fsim_process_exit(p);
			return false;
		}
		ok = true;
		break;
	}
	case ST_PROC_OP:
		ok = true;
		for (unsigned long k = 0; ok && k < st->repeat; k++)
			ok = run_process_op(r, st);
		break;
	default:
		ok = run_rmap(r, st, &touched);
		break;
	}
	if (!ok)
		return false;
	if (r->opts->trace) {
		if (st->kind == ST_PROCESS || st->kind == ST_PROC_OP)
			trace_processes(r);
		else if (touched)
			trace_folio(r, st->words[0], touched);
		if (st->kind != ST_MM && st->kind != ST_MMDROP && st->kind != ST_FOLIO &&
		    st->kind != ST_PROCESS && st->kind != ST_PROC_OP)
			trace_stats(r);
	}
	if (!r->opts->no_invariants && fsim_check_ctx(r->ctx, &v))
		return fail(r, "invariant %s broken: %s", v.invariant, v.detail);
	return true;
}

/* "runs in rfc mode only", "runs in legacy and base modes only" */
static void modes_text(unsigned int modes, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "runs in");
	unsigned int i, m, n = 0, total = 0;

	for (i = 0; i < FSIM_NR_MODES; i++)
		total += (modes >> i) & 1;
	for (i = 0; i < FSIM_NR_MODES && used < len; i++) {
		m = (unsigned int)fsim_mode_at(i);
		if (!((modes >> m) & 1))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 n == 0 ? " " : n + 1 == total ? " and " : ", ",
					 fsim_mode_name((enum fsim_mode)m));
		n++;
	}
	if (used < len)
		snprintf(buf + used, len - used, " mode%s only", total > 1 ? "s" : "");
}

/* Sets up a run; false (with res filled) if the scenario does not run. */
static bool run_begin(struct run *r, const struct fsim_script *script, size_t i,
		      const struct fsim_run_options *opts, struct fsim_result *res)
{
	const struct scenario *sc = &script->sc[i];
	unsigned int o;
	int c;

	memset(res, 0, sizeof(*res));
	memset(r, 0, sizeof(*r));
	r->script = script;
	r->sc = sc;
	r->opts = opts;
	r->res = res;
	if (sc->error) {
		res->outcome = FSIM_FAIL;
		snprintf(res->message, sizeof(res->message), "%s", sc->error);
		return false;
	}
	if (!((sc->modes >> opts->mode) & 1)) {
		res->outcome = FSIM_SKIP;
		modes_text(sc->modes, res->message, sizeof(res->message));
		return false;
	}
	if (fsim_ctx_create(opts->mode, &sc->arch, &r->ctx)) {
		fail(r, "cannot create a context");
		return false;
	}
	for (o = 1; o <= sc->arch.pmd_order && o < 32; o++)
		for (c = 0; c < FSIM_THP_NR_COUNTERS; c++)
			r->thp0[o][c] = fsim_ctx_thp_counter(r->ctx, o, (enum fsim_thp_counter)c);
	r->split0 = fsim_ctx_thp_deferred_split_page(r->ctx);
	res->outcome = FSIM_PASS;
	return true;
}

static void run_end(struct run *r)
{
	size_t k;

	/* Processes first: their exit unmaps folios the context then frees. */
	for (k = 0; k < r->nsyms; k++)
		if (r->syms[k].kind == SYM_PROCESS && !r->syms[k].dead)
			fsim_process_exit(r->syms[k].obj);
	fsim_ctx_destroy(r->ctx);
	for (k = 0; k < r->nsyms; k++)
		free(r->syms[k].name);
	free(r->syms);
	r->syms = NULL;
	r->nsyms = 0;
}

void fsim_script_run(const struct fsim_script *script, size_t i,
		     const struct fsim_run_options *opts, struct fsim_result *res)
{
	struct run r;
	size_t k;

	if (!run_begin(&r, script, i, opts, res))
		return;
	if (opts->trace)
		fprintf(opts->trace, "scenario %s (%s mode, %u-bit)\n", r.sc->name,
			fsim_mode_name(opts->mode), r.sc->arch.bits);
	for (k = 0; k < r.sc->nstmts; k++) {
		if (!run_statement(&r, &r.sc->stmts[k]))
			break;
		res->statements++;
	}
	run_end(&r);
}

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
		const char *const names[6] = { "rss_kb", "pss_kb", "private_kb",
					       "shared_kb", "anon_huge_kb", "mapmax" };
		const uint64_t vals[6] = { kb.rss, kb.pss, kb.private_total,
					   kb.shared_total, kb.anon_huge, kb.mapmax };

		for (j = 0; j < 6; j++) {
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

static void statement_text(const struct fsim_script *script, const struct stmt *st,
			   char *buf, size_t len)
{
	struct fsim_run_options to = { FSIM_MODE_LEGACY, NULL, true };
	struct fsim_result res;
	struct run tmp;
	FILE *f;
	size_t n;

	memset(&tmp, 0, sizeof(tmp));
	tmp.script = script;
	tmp.res = &res;
	tmp.opts = &to;
	buf[0] = '\0';
	f = tmpfile();
	if (!f)
		return;
	to.trace = f;
	trace_statement(&tmp, st);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	fclose(f);
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
		statement_text(d->script, st, text, sizeof(text));
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
		statement_text(rp->script, st, text, sizeof(text));
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
