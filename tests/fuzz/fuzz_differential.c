// SPDX-License-Identifier: MIT
/*
 * fuzz_differential: one random operation sequence run in an rfc context
 * and in a context of a kernel with per-page mapcounts (6.12 or the base
 * tree, chosen by the input; "legacy" below is either), restricted to
 * what 6.12 can express (PTE
 * batches anywhere, a PMD only as the whole of a PMD-sized folio, no PUD,
 * new-anon only up to the PMD order).  After every step:
 *
 *   - both return the same error code (same refusals),
 *   - fsim_check_ctx() passes in both,
 *   - every folio has the same folio_mapcount(), total mapped pages,
 *     refcount, pin count, oracle entries, and the same true mapcount and
 *     AnonExclusive bit on sampled pages,
 *   - where the cover letter says the modes agree, they do:
 *       * a folio whose pages are all mapped the same number of times c
 *         (e.g. fully mapped everywhere): kpagecount, numa_maps mapmax and
 *         Pss of a PTE entry are equal (the average is then exact);
 *         Pss of a PMD entry equal up to per-page rounding;
 *       * such a folio with c == 1, mapped by one mm that owns an rfc
 *         slot for all its entries: PM_MMAP_EXCLUSIVE is equal;
 *       * when every folio is unmapped or fully mapped, the node
 *         statistics are equal (cover letter (1) is about partly mapped
 *         folios only).
 * Any mismatch is a crash with both values printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_data_producer.h"

#define FZ_MAX_OPS 48

#define FZ_SHADOW 32

enum { L = 0, R = 1 };	/* index of the per-page (legacy or base) and the rfc context */

struct fz_mapping {
	unsigned int mm;
	enum fsim_level level;
	unsigned long page, nr;
};

struct fz_pair {
	struct fsim_folio *f[2];
	struct fz_mapping m[FZ_SHADOW];	/* mappings made, while exact */
	unsigned int n;
	bool exact;
};

struct fz_state {
	struct fdp in;
	struct fsim_ctx *ctx[2];
	const struct fsim_arch *arch;
	struct fz_pair folio[FZ_MAX_FOLIOS];
	struct fsim_mm *mm[FZ_MAX_MMS][2];
	unsigned long step;
	const char *op;
};

static struct fz_counters counters;
/* How often the "modes agree" comparisons applied (FOLIOSIM_FUZZ_STATS). */
static unsigned long long uniform_checks, owner_checks, stats_checks;

static void print_counters(void)
{
	fz_stats_print("fuzz_differential", &counters);
	fprintf(stderr, "fuzz_differential: %llu uniform-folio /proc comparisons, "
		"%llu single-owner exclusivity comparisons, %llu statistics comparisons\n",
		uniform_checks, owner_checks, stats_checks);
}

static void mismatch(struct fz_state *st, const char *what, uint64_t l, uint64_t r)
{
	char msg[240];

	snprintf(msg, sizeof(msg), "step %lu (%s): %s: %s %" PRIu64 ", %s %" PRIu64,
		 st->step, st->op, what, fsim_mode_name(fsim_ctx_mode(st->ctx[L])), l,
		 fsim_mode_name(fsim_ctx_mode(st->ctx[R])), r);
	fz_die("differential", msg);
}

static void same(struct fz_state *st, const char *what, uint64_t l, uint64_t r)
{
	if (l != r)
		mismatch(st, what, l, r);
}

/* ---- comparing one folio pair ---------------------------------------- */

/* c if every page is mapped exactly c times, else -1 (walks the oracle). */
static int64_t uniform_count(const struct fsim_folio *f)
{
	const unsigned long nr = fsim_folio_nr_pages(f);
	const uint64_t c = fsim_oracle_true_mapcount(f, 0);
	unsigned long i;

	for (i = 1; i < nr; i++)
		if (fsim_oracle_true_mapcount(f, i) != c)
			return -1;
	return (int64_t)c;
}

/* Does one mm map the rfc folio, with an rfc slot recording all of it? */
static bool single_owner_in_slot(const struct fsim_folio *fr)
{
	struct fsim_slot slots[2];
	unsigned int id;
	bool shared;
	int i;

	if (fsim_oracle_mms(fr, &id, 1) != 1)
		return false;
	if (fsim_folio_order(fr) == 0)
		return true;
	if (fsim_folio_slots(fr, slots, &shared))
		return false;
	for (i = 0; i < 2; i++)
		if (slots[i].mm_id == id &&
		    (uint64_t)slots[i].mapcount == fsim_oracle_entries(fr))
			return true;
	return false;
}

static void compare_samples(struct fz_state *st, struct fsim_folio *const f[2])
{
	const unsigned long nr = fsim_folio_nr_pages(f[L]);
	const unsigned long pages[4] = { 0, nr / 2, nr - 1, (st->step * 7919) % nr };
	unsigned int k;

	for (k = 0; k < 4; k++) {
		same(st, "true_mapcount", fsim_oracle_true_mapcount(f[L], pages[k]),
		     fsim_oracle_true_mapcount(f[R], pages[k]));
		same(st, "anon_exclusive", fsim_folio_anon_exclusive(f[L], pages[k]),
		     fsim_folio_anon_exclusive(f[R], pages[k]));
	}
}

static uint64_t pss_of(const struct fsim_folio *f, enum fsim_level level,
		       unsigned long page)
{
	struct fsim_smaps acc;

	memset(&acc, 0, sizeof(acc));
	fsim_smaps_account(f, level, page, false, &acc);
	return acc.pss;
}

/* Uniformly mapped folio: the average is exact, /proc must agree. */
static void compare_uniform(struct fz_state *st, struct fsim_folio *const f[2],
			    int64_t c)
{
	const unsigned long nr = fsim_folio_nr_pages(f[L]);
	const unsigned long pages[3] = { 0, nr - 1, (st->step * 104729) % nr };
	const struct fsim_arch *a = st->arch;
	unsigned int k;

	uniform_checks += c >= 1;	/* c == 0: unmapped, trivially equal */
	for (k = 0; k < 3; k++) {
		same(st, "kpagecount (uniform)", fsim_kpagecount(f[L], pages[k]),
		     fsim_kpagecount(f[R], pages[k]));
		same(st, "numa mapmax (uniform)", fsim_numa_mapmax(f[L], pages[k]),
		     fsim_numa_mapmax(f[R], pages[k]));
		if (c >= 1)
			same(st, "pss of a pte (uniform)", pss_of(f[L], FSIM_LEVEL_PTE, pages[k]),
			     pss_of(f[R], FSIM_LEVEL_PTE, pages[k]));
	}
	if (c >= 1 && fsim_folio_order(f[L]) == a->pmd_order) {
		/* 6.12 rounds per page, the RFC per entry: < 1 unit per page. */
		uint64_t pl = pss_of(f[L], FSIM_LEVEL_PMD, 0);
		uint64_t pr = pss_of(f[R], FSIM_LEVEL_PMD, 0);

		if ((pl > pr ? pl - pr : pr - pl) >= nr)
			mismatch(st, "pss of a pmd (uniform)", pl, pr);
	}
	if (c == 1 && single_owner_in_slot(f[R]) && ++owner_checks)
		same(st, "pagemap exclusive (one owner)",
		     fsim_pagemap_exclusive(f[L], 0), fsim_pagemap_exclusive(f[R], 0));
}

/* The references that are not pins: where a folio keeps no _pincount
 * (an order-1 folio on 32-bit in the base tree, not in 6.12 or rfc) each
 * pin is GUP_PIN_COUNTING_BIAS references. */
static uint64_t refs_but_pins(const struct fsim_folio *f)
{
	const uint64_t pins = (uint64_t)fsim_folio_pincount(f);

	return (uint64_t)fsim_folio_refcount(f) -
	       pins * (fsim_folio_has_pincount(f) ? 1 : FSIM_GUP_PIN_COUNTING_BIAS);
}

/* Returns whether the folio is unmapped or has every page mapped. */
static bool compare_pair(struct fz_state *st, struct fz_pair *p)
{
	struct fsim_folio *const *f = p->f;
	int64_t c;

	same(st, "mapcount", (uint64_t)fsim_folio_mapcount(f[L]),
	     (uint64_t)fsim_folio_mapcount(f[R]));
	same(st, "total_mapped_pages", fsim_folio_total_mapped_pages(f[L]),
	     fsim_folio_total_mapped_pages(f[R]));
	same(st, "refcount less pins", refs_but_pins(f[L]), refs_but_pins(f[R]));
	same(st, "pincount", (uint64_t)fsim_folio_pincount(f[L]),
	     (uint64_t)fsim_folio_pincount(f[R]));
	same(st, "oracle entries", fsim_oracle_entries(f[L]), fsim_oracle_entries(f[R]));
	compare_samples(st, f);
	c = uniform_count(f[R]);
	if (c >= 0)
		compare_uniform(st, f, c);
	return c >= 0 || !fsim_folio_mapped(f[R]);
}

static void compare_all(struct fz_state *st)
{
	bool all_full = true;
	unsigned int i;
	int s;

	for (i = 0; i < FZ_MAX_FOLIOS; i++)
		if (st->folio[i].f[L] && !compare_pair(st, &st->folio[i]))
			all_full = false;
	if (!all_full)
		return;
	stats_checks++;
	for (s = 0; s < FSIM_NR_STATS; s++)
		same(st, fsim_stat_name((enum fsim_stat)s),
		     (uint64_t)fsim_ctx_stat(st->ctx[L], (enum fsim_stat)s),
		     (uint64_t)fsim_ctx_stat(st->ctx[R], (enum fsim_stat)s));
}

/* ---- running one call in both contexts ------------------------------ */

struct fz_call {
	int kind;	/* enum below */
	unsigned int fi, mi, si;	/* folio, mm, source mm slots */
	enum fsim_level level;
	unsigned long page, nr;
	unsigned int n;
	bool flag;
};

enum { C_NEW_ANON, C_ADD, C_REMOVE, C_DUP, C_PIN, C_UNPIN, C_FREE, C_MMDROP, C_AE };

static int call_one(struct fz_state *st, const struct fz_call *c, int x)
{
	struct fsim_folio *f = st->folio[c->fi].f[x];
	struct fsim_mm *m = st->mm[c->mi][x], *s = st->mm[c->si][x];
	const bool anon = f && fsim_folio_kind(f) == FSIM_KIND_ANON;

	switch (c->kind) {
	case C_NEW_ANON: return fsim_folio_add_new_anon_rmap(f, m, c->flag);
	case C_ADD:
		return anon ? fsim_folio_add_anon_rmap(f, m, c->level, c->page, c->nr, c->flag)
			    : fsim_folio_add_file_rmap(f, m, c->level, c->page, c->nr);
	case C_REMOVE: return fsim_folio_remove_rmap(f, m, c->level, c->page, c->nr);
	case C_DUP:
		return anon ? fsim_folio_try_dup_anon_rmap(f, m, s, c->level, c->page, c->nr)
			    : fsim_folio_dup_file_rmap(f, m, s, c->level, c->page, c->nr);
	case C_PIN: return fsim_folio_pin(f, m, c->n);
	case C_UNPIN: return fsim_folio_unpin(f, c->n);
	case C_FREE: return fsim_folio_free(f);
	case C_MMDROP: return fsim_mm_destroy(m);
	default: return fsim_folio_set_anon_exclusive(f, c->page, c->flag);
	}
}

/* Both contexts; same error code; refused calls change nothing. */
static int call_both(struct fz_state *st, const struct fz_call *c, const char *op)
{
	struct fsim_folio *snapf[2][FZ_MAX_FOLIOS];
	struct fz_snapshot before[2];
	bool remapped_exclusive_refusal = false;
	int err[2] = { 0, 0 }, x;
	unsigned int i;

	st->op = op;
	st->step++;
	counters.ops++;
	for (x = 0; x < 2; x++) {
		for (i = 0; i < FZ_MAX_FOLIOS; i++)
			snapf[x][i] = st->folio[i].f[x];
		fz_snapshot_take(st->ctx[x], snapf[x], &before[x]);
		/* 6.12 warns when a page still AnonExclusive gets a second
		 * entry of its level, the series only for small folios: a call
		 * 6.12 refuses for that alone is not made in rfc either, so
		 * that the two states stay comparable. */
		if (x == R && err[L] == -EINVAL && remapped_exclusive_refusal) {
			err[R] = err[L];
			counters.one_sided++;
			continue;
		}
		err[x] = call_one(st, c, x);
		if (x == L)
			remapped_exclusive_refusal = err[L] &&
				strstr(fsim_last_refusal(), "AnonExclusive mapped again");
		if (err[x] == -EFAULT)
			fz_die(op, "free-time checks failed (model bug)");
		if (err[x])
			fz_snapshot_same(st->ctx[x], snapf[x], &before[x], op, err[x]);
	}
	if (err[L] != err[R]) {
		char msg[200];

		snprintf(msg, sizeof(msg), "step %lu %s: %s %s, %s %s", st->step, op,
			 fsim_mode_name(fsim_ctx_mode(st->ctx[L])), fsim_errname(err[L]),
			 fsim_mode_name(fsim_ctx_mode(st->ctx[R])), fsim_errname(err[R]));
		fz_die("differential refusal", msg);
	}
	counters.refused += err[L] != 0;
	return err[L];
}

static void after_step(struct fz_state *st)
{
	fz_check_ctx(st->ctx[L], st->op);
	fz_check_ctx(st->ctx[R], st->op);
	compare_all(st);
}

/* ---- decoding operations -------------------------------------------- */

static int pick_folio(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_FOLIOS);

	return st->folio[i].f[L] ? (int)i : -1;
}

static int pick_mm(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_MMS);

	return st->mm[i][L] ? (int)i : -1;
}

/* A PTE batch inside the folio, a whole-folio PMD of a PMD-sized folio,
 * or (1 in 8) a raw PTE range that both modes must refuse alike. */
static void pick_range(struct fz_state *st, const struct fsim_folio *f,
		       struct fz_call *c)
{
	const unsigned long nr = fsim_folio_nr_pages(f);

	c->level = FSIM_LEVEL_PTE;
	if (fsim_folio_order(f) == st->arch->pmd_order && fdp_bool(&st->in)) {
		c->level = FSIM_LEVEL_PMD;
		c->page = 0;
		c->nr = nr;
		return;
	}
	if (fdp_chance(&st->in, 1, 8)) {
		c->page = (unsigned long)fdp_u64_range(&st->in, 0, 2 * nr);
		c->nr = (unsigned long)fdp_u64_range(&st->in, 0, 2 * nr + 1);
		return;
	}
	c->page = (unsigned long)fdp_u64_range(&st->in, 0, nr - 1);
	c->nr = (unsigned long)fdp_u64_range(&st->in, 1, nr - c->page);
}

static void shadow_add(struct fz_pair *p, unsigned int mm, const struct fz_call *c)
{
	if (p->n < FZ_SHADOW)
		p->m[p->n++] = (struct fz_mapping){ mm, c->level, c->page, c->nr };
}

static void op_folio_create(struct fz_state *st)
{
	static const enum fsim_kind kinds[] = { FSIM_KIND_ANON, FSIM_KIND_FILE,
						FSIM_KIND_SHMEM };
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_FOLIOS);
	const unsigned int max = st->arch->pud_order < 11 ? st->arch->pud_order : 11;
	/* Favour the PMD order: it is where the modes have most to compare. */
	unsigned int order = fdp_chance(&st->in, 1, 3) ? st->arch->pmd_order :
			     fdp_u32_range(&st->in, 0, max);
	enum fsim_kind kind = kinds[fdp_pick(&st->in, 3)];
	int x;

	if (st->folio[i].f[L])
		return;
	for (x = 0; x < 2; x++)
		if (fsim_folio_create(st->ctx[x], order, kind, &st->folio[i].f[x]))
			fz_die("folio_create", "refused a valid folio");
	st->folio[i].n = 0;
	st->folio[i].exact = true;
	st->op = "folio_create";
	after_step(st);
}

static void op_mm_create(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_MMS);
	int x;

	if (st->mm[i][L])
		return;
	for (x = 0; x < 2; x++)
		if (fsim_mm_create(st->ctx[x], 0, &st->mm[i][x]))
			fz_die("mm_create", "refused");
	same(st, "mm id", fsim_mm_id(st->mm[i][L]), fsim_mm_id(st->mm[i][R]));
}

static void op_map(struct fz_state *st, int kind)
{
	struct fz_call c = { .kind = kind };
	int f = pick_folio(st), m = pick_mm(st);
	struct fsim_folio *fl;

	if (f < 0 || m < 0)
		return;
	c.fi = (unsigned int)f;
	c.mi = c.si = (unsigned int)m;
	c.flag = fdp_bool(&st->in);
	fl = st->folio[f].f[L];
	if (kind == C_NEW_ANON) {
		/* 6.12 cannot map a folio above the PMD order as new anon. */
		/* (a folio mapped before is refused by both: compared too) */
		if (fsim_folio_order(fl) > st->arch->pmd_order)
			return;
		c.level = fsim_folio_order(fl) == st->arch->pmd_order ?
			  FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
		c.nr = fsim_folio_nr_pages(fl);
	} else {
		pick_range(st, fl, &c);
	}
	if (kind == C_DUP && st->folio[f].n && fdp_chance(&st->in, 3, 4)) {
		struct fz_mapping mp = st->folio[f].m[fdp_pick(&st->in, st->folio[f].n)];

		c.si = mp.mm;
		c.level = mp.level;
		c.page = mp.page;
		c.nr = mp.nr;
	}
	if (!call_both(st, &c, kind == C_NEW_ANON ? "new_anon" : kind == C_ADD ? "add" : "dup"))
		shadow_add(&st->folio[f], c.mi, &c);
	after_step(st);
}

static void op_remove(struct fz_state *st)
{
	struct fz_call c = { .kind = C_REMOVE };
	int f = pick_folio(st), m;
	struct fz_pair *p;
	unsigned int k = 0;
	bool known;
	int err;

	if (f < 0)
		return;
	p = &st->folio[f];
	c.fi = (unsigned int)f;
	known = p->n && fdp_chance(&st->in, 3, 4);
	if (known) {
		k = (unsigned int)fdp_pick(&st->in, p->n);
		c.mi = p->m[k].mm;
		c.level = p->m[k].level;
		c.page = p->m[k].page;
		c.nr = p->m[k].nr;
	} else {
		if ((m = pick_mm(st)) < 0)
			return;
		c.mi = (unsigned int)m;
		pick_range(st, p->f[L], &c);
	}
	err = call_both(st, &c, "remove");
	if (known && !err)
		p->m[k] = p->m[--p->n];
	if (!known && !err)
		p->exact = false;
	if (known && err && p->exact)
		fz_die("remove", "removing a mapping this harness made was refused");
	after_step(st);
}

static void op_misc(struct fz_state *st, int kind)
{
	struct fz_call c = { .kind = kind };
	int f = pick_folio(st), m = pick_mm(st);

	if ((kind != C_MMDROP && f < 0) || ((kind == C_PIN || kind == C_MMDROP) && m < 0))
		return;
	c.fi = f < 0 ? 0 : (unsigned int)f;
	c.mi = c.si = m < 0 ? 0 : (unsigned int)m;
	c.n = fdp_u32_range(&st->in, 0, 3);
	c.flag = fdp_bool(&st->in);
	if (kind == C_AE)
		c.page = (unsigned long)fdp_u64_range(&st->in, 0,
				fsim_folio_nr_pages(st->folio[c.fi].f[L]));
	if (!call_both(st, &c, kind == C_PIN ? "pin" : kind == C_UNPIN ? "unpin" :
		       kind == C_FREE ? "free" : kind == C_MMDROP ? "mmdrop" :
		       "set_anon_exclusive")) {
		if (kind == C_FREE)
			st->folio[c.fi].f[L] = st->folio[c.fi].f[R] = NULL;
		if (kind == C_MMDROP)
			st->mm[c.mi][L] = st->mm[c.mi][R] = NULL;
	}
	after_step(st);
}

static void run_op(struct fz_state *st)
{
	switch (fdp_u32_range(&st->in, 0, 12)) {
	case 0: op_folio_create(st); break;
	case 1: op_mm_create(st); break;
	case 2: op_map(st, C_NEW_ANON); break;
	case 3: case 4: case 5: op_map(st, C_ADD); break;
	case 6: case 7: op_remove(st); break;
	case 8: op_map(st, C_DUP); break;
	case 9: op_misc(st, fdp_bool(&st->in) ? C_PIN : C_UNPIN); break;
	case 10: op_misc(st, C_FREE); break;
	case 11: op_misc(st, C_MMDROP); break;
	default: op_misc(st, C_AE); break;
	}
}

/* The @n-th mode (wrapping) that has per-page mapcounts if @per_page,
 * else the n-th that has none. */
static enum fsim_mode mode_with(bool per_page, unsigned int n)
{
	enum fsim_mode found[FSIM_NR_MODES];
	unsigned int i, k = 0;

	for (i = 0; i < FSIM_NR_MODES; i++)
		if (fsim_mode_has(fsim_mode_at(i), FSIM_HAS_PAGE_MAPCOUNT) == per_page)
			found[k++] = fsim_mode_at(i);
	return k ? found[n % k] : FSIM_NR_MODES;
}

static int setup(struct fz_state *st)
{
	struct fsim_arch arch = FSIM_ARCH_X86_64;
	unsigned int i, n;
	/* 6.12 or the base tree: both count every page's mappings */
	const enum fsim_mode per_page = mode_with(true, fdp_u32_range(&st->in, 0, 1));

	arch.bits = fdp_bool(&st->in) ? 32 : 64;
	if (fdp_chance(&st->in, 2, 3)) {	/* small PMDs: more to compare */
		arch.pmd_order = fdp_u32_range(&st->in, 1, 4);
		arch.pud_order = arch.pmd_order + fdp_u32_range(&st->in, 1, 4);
	}
	if (fsim_ctx_create(per_page, &arch, &st->ctx[L]))
		return -1;
	if (fsim_ctx_create(mode_with(false, 0), &arch, &st->ctx[R]))
		return -1;
	st->arch = fsim_ctx_arch(st->ctx[L]);
	n = fdp_u32_range(&st->in, 1, 3);
	for (i = 0; i < n; i++)
		op_mm_create(st);
	n = fdp_u32_range(&st->in, 1, 3);
	for (i = 0; i < n; i++)
		op_folio_create(st);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	struct fz_state st;
	unsigned int ops;

	if (!registered && getenv("FOLIOSIM_FUZZ_STATS")) {
		registered = true;
		atexit(print_counters);
	}
	memset(&st, 0, sizeof(st));
	st.in = fdp_init(data, size);
	counters.execs++;
	if (setup(&st) == 0)
		for (ops = 0; ops < FZ_MAX_OPS && !fdp_empty(&st.in); ops++)
			run_op(&st);
	fsim_ctx_destroy(st.ctx[L]);
	fsim_ctx_destroy(st.ctx[R]);
	return 0;
}
