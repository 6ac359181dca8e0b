// SPDX-License-Identifier: MIT
/*
 * fuzz_rmap: random sequences of rmap calls decoded from the input.
 *
 * A context in a mode and arch chosen by the input, up to four folios of
 * mixed orders and kinds, up to four mms, then operations until the input
 * runs out (at most FZ_MAX_OPS).  After every operation fsim_check_ctx()
 * must pass; a refused call must leave every folio digest and every
 * statistic unchanged.  Either failure is a crash.
 *
 * Most ranges are generated aligned and inside the folio, so that calls
 * succeed and reach the back ends; one in eight is raw (misaligned, out of
 * range, nr = 0, near ULONG_MAX) to exercise the refusal paths.  Removals
 * and dups usually replay a mapping this harness knows exists (a shadow
 * list), since a random guess almost never names one.
 */
#include <errno.h>
#include <limits.h>

#include "fuzz_common.h"
#include "fuzz_data_producer.h"

#define FZ_MAX_OPS 64

#define FZ_SHADOW 32

struct fz_mapping {
	unsigned int mm;		/* index into st->mms */
	enum fsim_level level;
	unsigned long page, nr;
};

/* The mappings this harness made on a folio, while it knows them exactly. */
struct fz_shadow {
	struct fz_mapping m[FZ_SHADOW];
	unsigned int n;
	bool exact;	/* false once a raw removal may have cut into them */
};

struct fz_state {
	struct fdp in;
	struct fsim_ctx *ctx;
	const struct fsim_arch *arch;
	struct fsim_folio *folios[FZ_MAX_FOLIOS];
	struct fsim_mm *mms[FZ_MAX_MMS];
	struct fz_shadow sh[FZ_MAX_FOLIOS];
	struct fz_snapshot before;
};

static struct fz_counters counters;

static void print_counters(void)
{
	fz_stats_print("fuzz_rmap", &counters);
}

/* ---- decoding ------------------------------------------------------- */

static unsigned int pick_order(struct fz_state *st)
{
	const bool per_page = fsim_mode_has(fsim_ctx_mode(st->ctx), FSIM_HAS_PAGE_MAPCOUNT);
	const unsigned int max = st->arch->pud_order < 11 ? st->arch->pud_order : 11;

	/* A PUD-sized folio is cheap without per-page mapcounts (rfc), costly
	 * with them (2^18 page mapcounts): only rfc on 64-bit gets one. */
	if (!per_page && st->arch->bits == 64 && fdp_chance(&st->in, 1, 16))
		return st->arch->pud_order;
	return fdp_u32_range(&st->in, 0, max);
}

static enum fsim_level pick_level(struct fz_state *st)
{
	return (enum fsim_level)fdp_u32_range(&st->in, 0, 2);
}

/* A level-aligned range inside the folio, or (1 in 8) a raw one. */
static void pick_range(struct fz_state *st, const struct fsim_folio *f,
		       enum fsim_level level, unsigned long *page, unsigned long *nr)
{
	const unsigned long pages = fsim_folio_nr_pages(f);
	const unsigned int lorder = level == FSIM_LEVEL_PTE ? 0 :
		level == FSIM_LEVEL_PMD ? st->arch->pmd_order : st->arch->pud_order;
	const unsigned long units = pages >> lorder;
	unsigned long u, k;

	if (units && !fdp_chance(&st->in, 1, 8)) {
		u = (unsigned long)fdp_u64_range(&st->in, 0, units - 1);
		k = (unsigned long)fdp_u64_range(&st->in, 1, units - u);
		*page = u << lorder;
		*nr = k << lorder;
		return;
	}
	*page = (unsigned long)fdp_u64_range(&st->in, 0, 2 * pages);
	*nr = fdp_chance(&st->in, 1, 8) ? ULONG_MAX - fdp_u32_range(&st->in, 0, 2) :
		(unsigned long)fdp_u64_range(&st->in, 0, 2 * pages + 1);
}

/* An existing folio/mm slot, or -1. */
static int pick_folio(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_FOLIOS);

	return st->folios[i] ? (int)i : -1;
}

static int pick_mm(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_MMS);

	return st->mms[i] ? (int)i : -1;
}

/* ---- bookkeeping ---------------------------------------------------- */

static void shadow_add(struct fz_shadow *sh, unsigned int mm, enum fsim_level level,
		       unsigned long page, unsigned long nr)
{
	if (sh->n < FZ_SHADOW)
		sh->m[sh->n++] = (struct fz_mapping){ mm, level, page, nr };
}

static void shadow_drop(struct fz_shadow *sh, unsigned int k)
{
	sh->m[k] = sh->m[--sh->n];
}

/* Snapshot before a call, so that a refusal can be compared. */
static void before_call(struct fz_state *st)
{
	fz_snapshot_take(st->ctx, st->folios, &st->before);
	counters.ops++;
}

static void after_call(struct fz_state *st, const char *op, int err)
{
	if (err) {
		counters.refused++;
		fz_snapshot_same(st->ctx, st->folios, &st->before, op, err);
	}
	fz_check_ctx(st->ctx, op);
}

/* ---- operations ----------------------------------------------------- */

static void op_folio_create(struct fz_state *st)
{
	static const enum fsim_kind kinds[] = { FSIM_KIND_ANON, FSIM_KIND_FILE,
						FSIM_KIND_SHMEM };
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_FOLIOS);
	enum fsim_kind kind = kinds[fdp_pick(&st->in, 3)];
	unsigned int order = pick_order(st);
	int err;

	if (st->folios[i])
		return;
	before_call(st);
	err = fsim_folio_create(st->ctx, order, kind, &st->folios[i]);
	if (err)
		st->folios[i] = NULL;
	st->sh[i] = (struct fz_shadow){ .n = 0, .exact = true };
	after_call(st, "folio_create", err);
}

static void op_folio_free(struct fz_state *st)
{
	int i = pick_folio(st);
	int err;

	if (i < 0)
		return;
	before_call(st);
	err = fsim_folio_free(st->folios[i]);
	if (err == -EFAULT)
		fz_die("fsim_folio_free", "free-time checks failed (model bug)");
	if (!err)
		st->folios[i] = NULL;
	after_call(st, "folio_free", err);
}

static void op_mm_create(struct fz_state *st)
{
	unsigned int i = (unsigned int)fdp_pick(&st->in, FZ_MAX_MMS);
	unsigned int id = 0;
	int err;

	if (st->mms[i])
		return;
	/* Mostly the IDA's choice; sometimes a fixed or taken id, and now
	 * and then MM_ID_MAX or MM_ID_MAX + 1 (ids from 2^20 up live in the
	 * IDA's sorted sparse array: cheap). */
	if (fdp_chance(&st->in, 1, 4))
		id = fdp_u32_range(&st->in, 1, 8);
	if (fdp_chance(&st->in, 1, st->arch->bits == 64 ? 256 : 8))
		id = (st->arch->bits == 64 ? 0x7fffffffu : 0x7fffu) +
		     fdp_u32_range(&st->in, 0, 1);
	before_call(st);
	err = fsim_mm_create(st->ctx, id, &st->mms[i]);
	if (err)
		st->mms[i] = NULL;
	after_call(st, "mm_create", err);
}

static void op_mmdrop(struct fz_state *st)
{
	int i = pick_mm(st);
	int err;

	if (i < 0)
		return;
	before_call(st);
	err = fsim_mm_destroy(st->mms[i]);
	if (!err)
		st->mms[i] = NULL;
	after_call(st, "mmdrop", err);
}

static void op_new_anon(struct fz_state *st)
{
	int f = pick_folio(st), m = pick_mm(st);
	bool excl = fdp_bool(&st->in);
	int err;

	/* Also on a folio that was mapped before: the library refuses that
	 * (tests/scenarios/fuzz-new-anon-twice.scn), and after_call() checks
	 * the refusal changed nothing. */
	if (f < 0 || m < 0)
		return;
	before_call(st);
	err = fsim_folio_add_new_anon_rmap(st->folios[f], st->mms[m], excl);
	after_call(st, "new_anon", err);
	if (!err) {
		/* Whole folio at the largest level that fits (a kernel that
		 * cannot map it so refused the call). */
		const unsigned int o = fsim_folio_order(st->folios[f]);
		enum fsim_level l = o >= st->arch->pud_order ? FSIM_LEVEL_PUD :
				    o >= st->arch->pmd_order ? FSIM_LEVEL_PMD :
				    FSIM_LEVEL_PTE;

		shadow_add(&st->sh[f], (unsigned int)m, l, 0,
			   fsim_folio_nr_pages(st->folios[f]));
	}
}

static void op_add(struct fz_state *st)
{
	int f = pick_folio(st), m = pick_mm(st);
	enum fsim_level level = pick_level(st);
	bool excl = fdp_bool(&st->in);
	unsigned long page, nr;
	struct fsim_folio *fo;
	int err;

	if (f < 0 || m < 0)
		return;
	fo = st->folios[f];
	pick_range(st, fo, level, &page, &nr);
	before_call(st);
	if (fsim_folio_kind(fo) == FSIM_KIND_ANON)
		err = fsim_folio_add_anon_rmap(fo, st->mms[m], level, page, nr, excl);
	else
		err = fsim_folio_add_file_rmap(fo, st->mms[m], level, page, nr);
	after_call(st, "add", err);
	if (!err)
		shadow_add(&st->sh[f], (unsigned int)m, level, page, nr);
}

/* Removes a known mapping (must succeed while the shadow is exact) or a
 * random range (usually refused). */
static void op_remove(struct fz_state *st)
{
	int f = pick_folio(st), m;
	struct fz_shadow *sh;
	enum fsim_level level;
	unsigned long page, nr;
	int err;

	if (f < 0)
		return;
	sh = &st->sh[f];
	if (sh->n && fdp_chance(&st->in, 3, 4)) {
		unsigned int k = (unsigned int)fdp_pick(&st->in, sh->n);
		struct fz_mapping mp = sh->m[k];

		before_call(st);
		err = fsim_folio_remove_rmap(st->folios[f], st->mms[mp.mm], mp.level,
					     mp.page, mp.nr);
		after_call(st, "remove (known mapping)", err);
		if (err && sh->exact)
			fz_die("remove", "removing a mapping this harness made was refused");
		if (!err)
			shadow_drop(sh, k);
		return;
	}
	m = pick_mm(st);
	if (m < 0)
		return;
	level = pick_level(st);
	pick_range(st, st->folios[f], level, &page, &nr);
	before_call(st);
	err = fsim_folio_remove_rmap(st->folios[f], st->mms[m], level, page, nr);
	after_call(st, "remove", err);
	if (!err)
		sh->exact = false;	/* may have cut into a shadow mapping */
}

/* fork: copies a known mapping (or a random range) to another mm. */
static void op_dup(struct fz_state *st)
{
	int f = pick_folio(st), dst = pick_mm(st), src;
	struct fz_shadow *sh;
	struct fz_mapping mp;
	struct fsim_folio *fo;
	int err;

	if (f < 0 || dst < 0)
		return;
	sh = &st->sh[f];
	fo = st->folios[f];
	if (sh->n && fdp_chance(&st->in, 3, 4)) {
		mp = sh->m[fdp_pick(&st->in, sh->n)];
	} else {
		src = pick_mm(st);
		if (src < 0)
			return;
		mp.mm = (unsigned int)src;
		mp.level = pick_level(st);
		pick_range(st, fo, mp.level, &mp.page, &mp.nr);
	}
	before_call(st);
	if (fsim_folio_kind(fo) == FSIM_KIND_ANON)
		err = fsim_folio_try_dup_anon_rmap(fo, st->mms[dst], st->mms[mp.mm],
						   mp.level, mp.page, mp.nr);
	else
		err = fsim_folio_dup_file_rmap(fo, st->mms[dst], st->mms[mp.mm],
					       mp.level, mp.page, mp.nr);
	after_call(st, "dup", err);
	if (!err)
		shadow_add(sh, (unsigned int)dst, mp.level, mp.page, mp.nr);
}

static void op_pin(struct fz_state *st, bool pin)
{
	int f = pick_folio(st), m = pick_mm(st);
	/* Mostly small counts; sometimes huge ones for the overflow checks. */
	unsigned int n = fdp_chance(&st->in, 1, 8) ? UINT_MAX - fdp_u32_range(&st->in, 0, 3) :
		fdp_u32_range(&st->in, 0, 3);
	int err;

	if (f < 0 || (pin && m < 0))
		return;
	before_call(st);
	err = pin ? fsim_folio_pin(st->folios[f], st->mms[m], n) :
		    fsim_folio_unpin(st->folios[f], n);
	after_call(st, pin ? "pin" : "unpin", err);
}

static void op_anon_exclusive(struct fz_state *st)
{
	int f = pick_folio(st);
	unsigned long page;
	bool set = fdp_bool(&st->in);
	int err;

	if (f < 0)
		return;
	page = (unsigned long)fdp_u64_range(&st->in, 0,
					    fsim_folio_nr_pages(st->folios[f]));
	before_call(st);
	err = fsim_folio_set_anon_exclusive(st->folios[f], page, set);
	after_call(st, "set_anon_exclusive", err);
}

/* The detect part: turn it on (rfc), walk one folio, or scan the queue
 * (at rmap level the scan flags but never splits). */
static void op_detect(struct fz_state *st)
{
	int f, err;

	switch (fdp_u32_range(&st->in, 0, 2)) {
	case 0:
		if (fsim_mode_has(fsim_ctx_mode(st->ctx), FSIM_HAS_DETECT_PART))
			fsim_ctx_set_detect(st->ctx, true);
		return;
	case 1:
		f = pick_folio(st);
		if (f < 0)
			return;
		before_call(st);
		err = fsim_folio_detect_partial(st->folios[f]);
		after_call(st, "detect_partial", err < 0 ? err : 0);
		return;
	default:
		before_call(st);
		err = fsim_ctx_deferred_split_scan(st->ctx, NULL);
		after_call(st, "deferred_split_scan", err);
		return;
	}
}

static void run_op(struct fz_state *st)
{
	switch (fdp_u32_range(&st->in, 0, 12)) {
	case 0: op_folio_create(st); break;
	case 1: op_folio_free(st); break;
	case 2: op_mm_create(st); break;
	case 3: op_mmdrop(st); break;
	case 4: op_new_anon(st); break;
	case 5: case 6: op_add(st); break;
	case 7: case 8: op_remove(st); break;
	case 9: op_dup(st); break;
	case 10: op_pin(st, fdp_bool(&st->in)); break;
	case 12: op_detect(st); break;
	default: op_anon_exclusive(st); break;
	}
}

/* ---- setup ---------------------------------------------------------- */

static int setup(struct fz_state *st)
{
	/* x86_64, or a small arch where PMDs and PUDs are cheap to reach. */
	struct fsim_arch arch = FSIM_ARCH_X86_64;
	enum fsim_mode mode = fsim_mode_at(fdp_u32_range(&st->in, 0, FSIM_NR_MODES - 1));
	unsigned int i, n;

	arch.bits = fdp_bool(&st->in) ? 32 : 64;
	if (fdp_bool(&st->in)) {
		arch.pmd_order = fdp_u32_range(&st->in, 1, 4);
		arch.pud_order = arch.pmd_order + fdp_u32_range(&st->in, 1, 4);
	}
	if (fsim_ctx_create(mode, &arch, &st->ctx))
		return -1;
	st->arch = fsim_ctx_arch(st->ctx);
	n = fdp_u32_range(&st->in, 1, 3);
	for (i = 0; i < n; i++)
		if (fsim_mm_create(st->ctx, 0, &st->mms[i]))
			fz_die("setup", "mm_create");
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
	if (setup(&st))
		return 0;
	for (ops = 0; ops < FZ_MAX_OPS && !fdp_empty(&st.in); ops++)
		run_op(&st);
	fsim_ctx_destroy(st.ctx);
	return 0;
}
