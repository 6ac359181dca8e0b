// SPDX-License-Identifier: GPL-2.0
/*
 * kh-fuzz: differential fuzzing of the model against this tree's own
 * mm/rmap.c, at native speed.
 *
 * Each input is decoded (tests/fuzz/fuzz_data_producer.h) into rmap calls
 * on up to four folios (anon, file, shmem, hugetlb; orders 0 to the PUD
 * order) and four mms: new-anon, adds at every level, removals and dups of
 * ranges that are mapped, pins, frees.  Every call goes to the model
 * first; a call the model accepts and the tree's code can make goes to the
 * kernel code too.  After each such call the touched folio's counters, its
 * pages at both ends of the call's range (all of it up to 512 pages), and
 * the node statistics and THP counters are compared (kh_compare.c); every
 * 1000 calls, and at the end of each input,
 * every folio whole and the model's own invariants (fsim_check_ctx()).  A
 * path that forgets to check something is still caught by those: the full
 * comparison reads every value of every page.
 *
 * A difference, a WARN() or a BUG() in the kernel code aborts, after
 * writing the input's calls as a scenario (kh-fuzz-repro.scn, or
 * $KH_FUZZ_REPRO) that kh-run and foliosim check replay.
 *
 * Linked with tests/fuzz/regression_driver.c (regression corpus, --mutate
 * campaigns) or libFuzzer.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <foliosim/scenario.h>

#include "fuzz_data_producer.h"
#include "kh_harness.h"

#define NMMS	4
#define NFOLIOS	4
#define NRECS	128

struct slot {
	struct fsim_folio *f;
	struct kh_folio *kf;
	char name[8];
};

/* A mapping some call made, for removals and dups to aim at. */
struct rec {
	int folio, mm, level;
	unsigned long page, nr;
};

struct state {
	struct fdp in;
	struct fsim_ctx *ctx;
	struct fsim_mm *mm[NMMS];
	struct kh_mm *kmm[NMMS];
	struct slot folio[NFOLIOS];
	struct rec rec[NRECS];
	unsigned int nrec, nfolios_made;
	char *log;		/* the input as a scenario, for a reproducer */
	size_t loglen, logcap;
};

static unsigned long long calls_total, calls_kernel, inputs;
static unsigned int pmd_order, pud_order;
static struct fsim_arch tree_arch;	/* the model's: the tree's own */
static unsigned long long allocs_dropped;
static jmp_buf bug_jump;

static void logf_(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct state *st, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (st->logcap - st->loglen < 256) {
		size_t cap = st->logcap ? 2 * st->logcap : 4096;
		char *p = realloc(st->log, cap);

		if (!p)
			abort();
		st->log = p;
		st->logcap = cap;
	}
	va_start(ap, fmt);
	n = vsnprintf(st->log + st->loglen, st->logcap - st->loglen, fmt, ap);
	va_end(ap);
	if (n > 0)
		st->loglen += (size_t)n < st->logcap - st->loglen ? (size_t)n : 0;
}

static void die(struct state *st, const char *what) __attribute__((noreturn));
static void die(struct state *st, const char *what)
{
	const char *path = getenv("KH_FUZZ_REPRO") ? getenv("KH_FUZZ_REPRO") : "kh-fuzz-repro.scn";
	FILE *out = fopen(path, "w");

	fprintf(stderr, "kh-fuzz: %s (%s)\n", what, kh_tree_label());
	if (out) {
		const struct kh_tree_info *t = kh_tree();

		fprintf(out, "# kh-fuzz reproducer (%s): %s\nscenario kh-fuzz-repro\nmode %s\n",
			kh_tree_label(), what, fsim_mode_name(kh_tree_mode()));
		if (memcmp(&tree_arch, &FSIM_ARCH_X86_64, sizeof(tree_arch)))
			fprintf(out, "arch bits=%u page_shift=%u pmd_order=%u pud_order=%u\n",
				t->bits, t->page_shift, t->pmd_order, t->pud_order);
		fprintf(out, "%.*s", (int)st->loglen, st->log ? st->log : "");
		fclose(out);
		fprintf(stderr, "kh-fuzz: the calls are in %s (kh-run %s)\n", path, path);
	}
	abort();
}

static const char *level_name(int level)
{
	return level == FSIM_LEVEL_PTE ? "pte" : level == FSIM_LEVEL_PMD ? "pmd" : "pud";
}

static void check_events(struct state *st)
{
	char msg[700];

	if (!kh_events()->warnings)
		return;
	snprintf(msg, sizeof(msg), "the kernel code warns at %s:%d on a call the model "
		 "accepts: %s", kh_events()->last.file, kh_events()->last.line,
		 kh_events()->last.printed);
	die(st, msg);
}

static void compare(struct state *st, int i, unsigned long first, unsigned long nr)
{
	char why[256], msg[400];

	if (st->folio[i].f &&
	    kh_compare_folio_pages(st->folio[i].f, st->folio[i].kf, first, nr, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "folio %s: %s", st->folio[i].name, why);
		die(st, msg);
	}
	if (kh_compare_stats(st->ctx, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "statistics: %s", why);
		die(st, msg);
	}
}

static void compare_all(struct state *st)
{
	struct fsim_violation v;
	char msg[300];
	int i;

	for (i = 0; i < NFOLIOS; i++)
		if (st->folio[i].f)
			compare(st, i, 0, fsim_folio_nr_pages(st->folio[i].f));
	if (fsim_check_ctx(st->ctx, &v)) {
		snprintf(msg, sizeof(msg), "the model's invariant %s: %s", v.invariant, v.detail);
		die(st, msg);
	}
}

/* After a call on both: the touched folio's counters, the pages at both
 * ends of the call's range (all of it up to 512 pages), the statistics;
 * every 1000 calls everything, every page of every folio. */
static void after_call(struct state *st, int i, unsigned long first, unsigned long nr)
{
	calls_kernel++;
	check_events(st);
	if (nr > 512) {
		compare(st, i, first + nr - 256, 256);
		nr = 256;
	}
	compare(st, i, first, nr);
	if (calls_kernel % 1000 == 0)
		compare_all(st);
}

static void remember(struct state *st, int folio, int mm, int level, unsigned long page,
		     unsigned long nr)
{
	if (st->nrec < NRECS)
		st->rec[st->nrec++] = (struct rec){ folio, mm, level, page, nr };
}

/* ---- the calls -------------------------------------------------------- */

/* Orders, weighted: a folio of order 15 (18) is 32768 (262144) struct
 * pages to set up, most of an input's time; they come 1 in 32 (1 in 256). */
static const unsigned int orders[] = { 0, 1, 2, 3, 4, 9, 9, 10 };

static void op_folio(struct state *st)
{
	int i = (int)fdp_pick(&st->in, NFOLIOS);
	struct slot *s = &st->folio[i];
	bool hugetlb = fdp_chance(&st->in, 1, 8);
	unsigned int order = hugetlb ? (fdp_chance(&st->in, 1, 8) ? pud_order : pmd_order) :
			     fdp_chance(&st->in, 1, 256) ? pud_order :
			     fdp_chance(&st->in, 1, 32) ? 15 :
			     orders[fdp_pick(&st->in, sizeof(orders) / sizeof(orders[0]))];
	enum fsim_kind kind = (enum fsim_kind)fdp_pick(&st->in, hugetlb ? 2 : 3);

	if (s->f)
		return;
	if (hugetlb ? fsim_folio_create_hugetlb(st->ctx, order, kind, &s->f) :
		      fsim_folio_create(st->ctx, order, kind, &s->f))
		return;
	s->kf = kh_folio_alloc(order, (int)kind, hugetlb);
	if (!s->kf) {
		/* the harness's memory map is full (i386: 4 GiB of pfns, room
		 * for three order-18 folios): not a difference, the op is
		 * dropped and counted */
		fsim_folio_free(s->f);
		s->f = NULL;
		allocs_dropped++;
		return;
	}
	snprintf(s->name, sizeof(s->name), "F%u", st->nfolios_made++);
	logf_(st, "folio %s order=%u %s%s\n", s->name, order, fsim_kind_name(kind),
	      hugetlb ? " hugetlb" : "");
	calls_total++;
	compare(st, i, 0, 0);
}

static void op_free(struct state *st)
{
	int i = (int)fdp_pick(&st->in, NFOLIOS);
	struct slot *s = &st->folio[i];

	if (!s->f || fsim_folio_free(s->f))
		return;
	if (kh_folio_free(s->kf))
		die(st, "the model frees a folio the kernel half finds mapped or pinned");
	logf_(st, "free %s\n", s->name);
	s->f = NULL;
	s->kf = NULL;
	calls_total++;
	compare(st, i, 0, 0);
}

static void op_new_anon(struct state *st)
{
	int i = (int)fdp_pick(&st->in, NFOLIOS), m = (int)fdp_pick(&st->in, NMMS);
	bool excl = fdp_bool(&st->in);
	struct slot *s = &st->folio[i];
	struct kh_call_desc d = { .op = FSIM_OP_NEW_ANON };

	if (!s->f)
		return;
	d.f = s->f;
	d.kf = s->kf;
	if (kh_tree_cannot(&d))
		return;
	calls_total++;
	if (fsim_folio_add_new_anon_rmap(s->f, st->mm[m], excl))
		return;
	logf_(st, "new-anon %s mm=M%d exclusive=%s\n", s->name, m, excl ? "yes" : "no");
	kh_events_reset();
	if (fsim_folio_test_hugetlb(s->f))
		kh_hugetlb_add(s->kf, st->kmm[m], true, excl);
	else
		kh_add_new_anon(s->kf, st->kmm[m], excl);
	remember(st, i, m, -1, 0, fsim_folio_nr_pages(s->f));
	after_call(st, i, 0, fsim_folio_nr_pages(s->f));
}

/* A range of @f aligned to @level: the whole folio, one entry, or a run. */
static int pick_range(struct state *st, const struct fsim_folio *f, int level,
		      unsigned long *page, unsigned long *nr)
{
	const unsigned long nr_pages = fsim_folio_nr_pages(f);
	const unsigned int lorder = level == FSIM_LEVEL_PTE ? 0 :
				    level == FSIM_LEVEL_PMD ? pmd_order : pud_order;
	unsigned long entries = nr_pages >> lorder, first, n;

	if (!entries)
		return -1;
	first = fdp_u64_range(&st->in, 0, entries - 1);
	n = fdp_chance(&st->in, 1, 2) ? 1 : fdp_u64_range(&st->in, 1, entries - first);
	*page = first << lorder;
	*nr = n << lorder;
	return 0;
}

static void op_add(struct state *st)
{
	int i = (int)fdp_pick(&st->in, NFOLIOS), m = (int)fdp_pick(&st->in, NMMS);
	int level = (int)fdp_pick(&st->in, 3);
	bool excl = fdp_chance(&st->in, 1, 4);
	struct slot *s = &st->folio[i];
	struct kh_call_desc d = { .op = FSIM_OP_ADD };
	bool anon, hugetlb;
	unsigned long page, nr;
	int err;

	if (!s->f || pick_range(st, s->f, level, &page, &nr))
		return;
	anon = fsim_folio_kind(s->f) == FSIM_KIND_ANON;
	hugetlb = fsim_folio_test_hugetlb(s->f);
	if (!anon)
		excl = false;
	d = (struct kh_call_desc){ FSIM_OP_ADD, s->f, s->kf, level, page, nr, excl };
	if (kh_tree_cannot(&d))
		return;
	calls_total++;
	err = anon ? fsim_folio_add_anon_rmap(s->f, st->mm[m], level, page, nr, excl) :
		     fsim_folio_add_file_rmap(s->f, st->mm[m], level, page, nr);
	if (err)
		return;
	logf_(st, "add %s mm=M%d level=%s page=%lu nr=%lu%s\n", s->name, m, level_name(level),
	      page, nr, excl ? " exclusive=yes" : "");
	kh_events_reset();
	if (hugetlb)
		err = kh_hugetlb_add(s->kf, st->kmm[m], false, excl);
	else if (anon)
		err = kh_add_anon(s->kf, st->kmm[m], level, page, nr, excl);
	else
		err = kh_add_file(s->kf, st->kmm[m], level, page, nr);
	if (err)
		die(st, "the model accepts an add the kernel code refuses");
	remember(st, i, m, level, page, nr);
	after_call(st, i, page, nr);
}

static void op_remove_or_dup(struct state *st, bool dup)
{
	struct rec *r;
	struct slot *s;
	struct kh_call_desc d;
	unsigned long page, nr, entry;
	int level, dst, err;

	if (!st->nrec)
		return;
	r = &st->rec[fdp_pick(&st->in, st->nrec)];
	s = &st->folio[r->folio];
	if (!s->f)
		return;
	level = r->level;
	if (level < 0) {	/* new-anon: the level the model chose */
		const unsigned int o = fsim_folio_order(s->f);

		level = o >= pud_order ? FSIM_LEVEL_PUD : o >= pmd_order ? FSIM_LEVEL_PMD :
			FSIM_LEVEL_PTE;
	}
	entry = 1ul << (level == FSIM_LEVEL_PTE ? 0 : level == FSIM_LEVEL_PMD ? pmd_order : pud_order);
	/* the whole record, or a part of it on entry boundaries */
	page = r->page + (fdp_u64_range(&st->in, 0, r->nr / entry - 1) * entry);
	nr = fdp_bool(&st->in) ? entry : r->page + r->nr - page;
	/* fork dups a PMD (PUD) entry per call (copy_huge_pmd()) and may be
	 * refused at any one of them; the model's dup of several entries is
	 * one call, refused whole: ask it one entry at a time */
	if (dup && level != FSIM_LEVEL_PTE)
		nr = entry;
	dst = (int)fdp_pick(&st->in, NMMS);
	d = (struct kh_call_desc){ dup ? FSIM_OP_DUP : FSIM_OP_REMOVE, s->f, s->kf, level,
				   page, nr, false };
	if (kh_tree_cannot(&d))
		return;
	calls_total++;
	if (dup)
		err = fsim_folio_kind(s->f) == FSIM_KIND_ANON ?
		      fsim_folio_try_dup_anon_rmap(s->f, st->mm[dst], st->mm[r->mm], level, page, nr) :
		      fsim_folio_dup_file_rmap(s->f, st->mm[dst], st->mm[r->mm], level, page, nr);
	else
		err = fsim_folio_remove_rmap(s->f, st->mm[r->mm], level, page, nr);
	if (err == -EBUSY && dup) {
		/* a maybe-pinned exclusive page: the kernel must refuse too */
		logf_(st, "dup %s mm=M%d src=M%d level=%s page=%lu nr=%lu fails=EBUSY\n",
		      s->name, dst, r->mm, level_name(level), page, nr);
		kh_events_reset();
		err = fsim_folio_test_hugetlb(s->f) ?
		      kh_hugetlb_dup(s->kf, st->kmm[dst], st->kmm[r->mm]) :
		      kh_dup(s->kf, st->kmm[dst], st->kmm[r->mm], level, page, nr);
		if (err != -EBUSY)
			die(st, "the model refuses a dup with EBUSY, the kernel code does not");
		after_call(st, r->folio, page, nr);
		return;
	}
	if (err)
		return;
	if (dup)
		logf_(st, "dup %s mm=M%d src=M%d level=%s page=%lu nr=%lu\n", s->name, dst,
		      r->mm, level_name(level), page, nr);
	else
		logf_(st, "remove %s mm=M%d level=%s page=%lu nr=%lu\n", s->name, r->mm,
		      level_name(level), page, nr);
	kh_events_reset();
	if (fsim_folio_test_hugetlb(s->f))
		err = dup ? kh_hugetlb_dup(s->kf, st->kmm[dst], st->kmm[r->mm]) :
			    kh_hugetlb_remove(s->kf, st->kmm[r->mm]);
	else
		err = dup ? kh_dup(s->kf, st->kmm[dst], st->kmm[r->mm], level, page, nr) :
			    kh_remove(s->kf, st->kmm[r->mm], level, page, nr);
	if (err)
		die(st, "the model accepts a call the kernel code refuses");
	if (dup)
		remember(st, r->folio, dst, level, page, nr);
	after_call(st, r->folio, page, nr);
}

static void op_pin(struct state *st, bool pin)
{
	int i = (int)fdp_pick(&st->in, NFOLIOS), m = (int)fdp_pick(&st->in, NMMS);
	struct slot *s = &st->folio[i];

	if (!s->f || kh_tree_cannot(&(struct kh_call_desc){ .op = pin ? FSIM_OP_PIN : FSIM_OP_UNPIN,
							     .f = s->f, .kf = s->kf }))
		return;
	calls_total++;
	if (pin ? fsim_folio_pin(s->f, st->mm[m], 1) : fsim_folio_unpin(s->f, 1))
		return;
	if (pin)
		logf_(st, "pin %s mm=M%d\n", s->name, m);
	else
		logf_(st, "unpin %s\n", s->name);
	kh_events_reset();
	if (pin)
		kh_pin(s->kf, st->kmm[m], 1);
	else
		kh_unpin(s->kf, 1);
	after_call(st, i, 0, 0);
}

/* Removes whatever @mm still maps of [page, page + nr) at @level in both:
 * the whole range if it can, else each half (entries stay whole). */
static void cleanup_range(struct state *st, int i, int m, int level, unsigned long page,
			  unsigned long nr, unsigned long entry)
{
	struct slot *s = &st->folio[i];
	unsigned long half;

	if (!fsim_folio_remove_rmap(s->f, st->mm[m], level, page, nr)) {
		kh_events_reset();
		if (fsim_folio_test_hugetlb(s->f))
			kh_hugetlb_remove(s->kf, st->kmm[m]);
		else
			kh_remove(s->kf, st->kmm[m], level, page, nr);
		logf_(st, "remove %s mm=M%d level=%s page=%lu nr=%lu\n", s->name, m,
		      level_name(level), page, nr);
		after_call(st, i, page, nr);
		return;
	}
	if (nr <= entry)
		return;
	half = (nr / entry / 2) * entry;
	cleanup_range(st, i, m, level, page, half, entry);
	cleanup_range(st, i, m, level, page + half, nr - half, entry);
}

/* Undoes what the input mapped, so that the next input starts clean and
 * the harness's pfn space is reused: removals of every record left, then
 * pins, then frees. */
static void cleanup(struct state *st)
{
	int i;

	while (st->nrec) {
		struct rec *r = &st->rec[--st->nrec];
		struct slot *s = &st->folio[r->folio];
		int level = r->level;

		if (!s->f)
			continue;
		if (level < 0) {
			const unsigned int o = fsim_folio_order(s->f);

			level = o >= pud_order ? FSIM_LEVEL_PUD : o >= pmd_order ?
				FSIM_LEVEL_PMD : FSIM_LEVEL_PTE;
		}
		cleanup_range(st, r->folio, r->mm, level, r->page, r->nr,
			      1ul << (level == FSIM_LEVEL_PTE ? 0 : level == FSIM_LEVEL_PMD ?
				      pmd_order : pud_order));
	}
	for (i = 0; i < NFOLIOS; i++) {
		struct slot *s = &st->folio[i];

		while (s->f && fsim_folio_pincount(s->f) > 0 && !fsim_folio_unpin(s->f, 1)) {
			kh_unpin(s->kf, 1);
			logf_(st, "unpin %s\n", s->name);
		}
		if (s->f && !fsim_folio_free(s->f)) {
			if (kh_folio_free(s->kf))
				die(st, "the model frees a folio the kernel half finds mapped or pinned");
			logf_(st, "free %s\n", s->name);
			s->f = NULL;
			s->kf = NULL;
		}
	}
	compare_all(st);
	/* what the records could not undo (more than NRECS mappings): the
	 * model's context goes with the input, the kernel half's folio is
	 * dropped so that its pfns serve the next inputs */
	for (i = 0; i < NFOLIOS; i++)
		if (st->folio[i].kf)
			kh_folio_discard(st->folio[i].kf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct state st;
	bool detect;
	int i;

	if (!ready) {
		if (kh_init())
			abort();
		pmd_order = kh_tree()->pmd_order;
		pud_order = kh_tree()->pud_order;
		tree_arch = (struct fsim_arch){ kh_tree()->bits, kh_tree()->page_shift,
						pmd_order, pud_order };
		ready = true;
	}
	memset(&st, 0, sizeof(st));
	st.in = fdp_init(data, size);
	inputs++;
	if (fsim_ctx_create(kh_tree_mode(), &tree_arch, &st.ctx))
		abort();
	/* the detect part's tree: with its switch on for half the inputs */
	detect = (kh_tree()->features & KH_HAS_DETECT) && fdp_bool(&st.in);
	kh_set_detect(detect);
	if (detect && fsim_ctx_set_detect(st.ctx, true))
		abort();
	if (detect)
		logf_(&st, "part detect\n");
	kh_compare_baseline(st.ctx);
	for (i = 0; i < NMMS; i++) {
		if (fsim_mm_create(st.ctx, 0, &st.mm[i]))
			abort();
		st.kmm[i] = kh_mm_create(fsim_mm_id(st.mm[i]));
		logf_(&st, "mm M%d\n", i);
	}
	kh_set_bug_jump(&bug_jump);
	if (setjmp(bug_jump)) {
		char msg[700];

		snprintf(msg, sizeof(msg), "the kernel code BUG()s at %s:%d: %s",
			 kh_events()->last.file, kh_events()->last.line, kh_events()->last.printed);
		die(&st, msg);
	}
	while (!fdp_empty(&st.in)) {
		switch (fdp_pick(&st.in, 9)) {
		case 0: op_folio(&st); break;
		case 1: op_new_anon(&st); break;
		case 2: case 3: op_add(&st); break;
		case 4: case 5: op_remove_or_dup(&st, false); break;
		case 6: op_remove_or_dup(&st, true); break;
		case 7: op_pin(&st, fdp_bool(&st.in)); break;
		default: op_free(&st); break;
		}
	}
	cleanup(&st);
	kh_set_bug_jump(NULL);
	for (i = 0; i < NMMS; i++)
		kh_mm_destroy(st.kmm[i]);
	fsim_ctx_destroy(st.ctx);
	free(st.log);
	return 0;
}

static void report(void)
{
	fprintf(stderr, "kh-fuzz: %llu inputs, %llu calls, %llu on both the model and the "
		"kernel code (%s)\n", inputs, calls_total, calls_kernel, kh_tree_label());
	if (allocs_dropped)
		fprintf(stderr, "kh-fuzz: %llu folios dropped: the harness's memory map was "
			"full\n", allocs_dropped);
}

__attribute__((constructor)) static void kh_fuzz_report_at_exit(void)
{
	if (getenv("KH_FUZZ_STATS"))
		atexit(report);
}
