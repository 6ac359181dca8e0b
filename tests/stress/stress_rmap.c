// SPDX-License-Identifier: MIT
/*
 * stress_rmap: concurrent rmap calls on shared folios, with lockless
 * readers under RCU (liburcu).
 *
 * Writer threads each stand for one mm and map/unmap the shared folios
 * through the public rmap calls (PTE batches everywhere, PMDs where the
 * mode allows them), with fsim_ctx_set_concurrent(ctx, true).  Reader
 * threads read folio_mapcount(), folio_maybe_mapped_shared(), the average
 * page mapcount, kpagecount and PM_MMAP_EXCLUSIVE without any lock,
 * inside rcu_read_lock(); they find the folios through an RCU-protected
 * pointer array.  Work runs in phases: at the end of each, the writers
 * wait on a barrier (a quiescent point) and fsim_check_ctx() must pass;
 * then one folio is unmapped by everyone, replaced in the array with
 * rcu_assign_pointer() and retired with call_rcu(): it is freed only
 * after a grace period, so a reader can never touch a freed folio (ASan
 * would say so).
 *
 * --turns: the seeded deterministic mode (turns.h).  All threads take
 * turns at the model's hook points; --seed N replays one interleaving
 * exactly.  Quiescent checks run whenever every writer is between calls.
 * Folios are not retired in this mode (a barrier would block the turn).
 *
 *   stress_rmap [--mode legacy|base|rfc] [--writers N] [--readers N]
 *               [--seconds S] [--long] [--turns] [--seed N] [--ops N]
 *               [--replay-check]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu.h>

#include "foliosim/foliosim.h"
#include "tsan_annotate.h"
#include "turns.h"

#define NR_SLOTS 6
#define MAX_RECORDS 48		/* mappings one writer keeps on one folio */
#define MAX_WRITERS 8
#define MAX_READERS 8
#define PTE_BATCH_MAX 16

struct options {
	enum fsim_mode mode;
	unsigned int writers, readers;
	double seconds;
	bool turns, replay_check;
	uint64_t seed;
	unsigned long ops;	/* per writer per phase (turns: in total) */
};

struct record {
	enum fsim_level level;
	unsigned long page, nr;
};

struct writer {
	unsigned int id;
	struct fsim_mm *mm;
	uint64_t rng;
	struct record rec[NR_SLOTS][MAX_RECORDS];
	unsigned int nrec[NR_SLOTS];
	unsigned int pins[NR_SLOTS];
	unsigned long ops;
};

struct retired {
	struct rcu_head head;
	struct fsim_folio *folio;
};

static struct options opt = { FSIM_MODE_RFC, 2, 2, 2.0, false, false, 0, 2000 };
static struct fsim_ctx *ctx;
/* The RCU-protected array the readers walk.  Published and read with C11
 * release/acquire (slot_publish/slot_deref: what rcu_assign_pointer() and
 * rcu_dereference() do, in a form ThreadSanitizer understands).  Writers
 * read it plainly: slots change only while every writer waits on the
 * phase barrier. */
static struct fsim_folio *_Atomic slots_rcu[NR_SLOTS];
#define slots(i) atomic_load_explicit(&slots_rcu[i], memory_order_relaxed)
static struct writer writers[MAX_WRITERS];
static pthread_barrier_t phase_barrier;
static atomic_bool stop_readers, stop_writers;
static atomic_int retire_slot = -1;
static atomic_ulong reads_done, frees_done, checks_done;
static atomic_int failures;
static struct turns *sched;
static char tsan_grace, tsan_ctx;	/* TSan happens-before anchors */

/* Orders and kinds of the shared folios: small, mTHP, PMD-sized, two PMDs. */
static const unsigned int slot_order[NR_SLOTS] = { 0, 2, 4, 9, 9, 10 };
static const enum fsim_kind slot_kind[NR_SLOTS] = {
	FSIM_KIND_FILE, FSIM_KIND_ANON, FSIM_KIND_SHMEM,
	FSIM_KIND_ANON, FSIM_KIND_FILE, FSIM_KIND_ANON,
};

/* Every failure names the seed; in --turns mode the seed replays it. */
static void slot_publish(unsigned int i, struct fsim_folio *f)
{
	atomic_store_explicit(&slots_rcu[i], f, memory_order_release);
}

static struct fsim_folio *slot_deref(unsigned int i)
{
	return atomic_load_explicit(&slots_rcu[i], memory_order_acquire);
}

static void fail(const char *what, const char *detail, long value)
{
	fprintf(stderr, "stress_rmap: FAIL: %s: %s (%ld); seed %" PRIu64 "%s\n",
		what, detail, value, opt.seed,
		opt.turns ? " (replay: --turns --seed N)" : "");
	atomic_fetch_add(&failures, 1);
}

/* ---- checks ------------------------------------------------------------ */

static void check_ctx(const char *when)
{
	struct fsim_violation v;

	atomic_fetch_add(&checks_done, 1);
	if (fsim_check_ctx(ctx, &v) == 0)
		return;
	fprintf(stderr, "stress_rmap: invariant %s broken %s: %s\n", v.invariant,
		when, v.detail);
	fail("fsim_check_ctx", when, 0);
}

static void turns_quiescent(void *arg)
{
	(void)arg;
	check_ctx("at a quiescent point (turns)");
}

/* ---- writers ----------------------------------------------------------- */

static unsigned long rnd(struct writer *w, unsigned long n)
{
	return n ? (unsigned long)(turns_rand(&w->rng) % n) : 0;
}

static void writer_yield(void)
{
	if (sched)
		turns_yield(sched, "op");
}

/* A PMD where the mode allows one: rfc any aligned part of a folio of at
 * least the PMD order; legacy only the whole of a PMD-sized folio. */
static bool pick_pmd(struct writer *w, const struct fsim_folio *f, struct record *r)
{
	const unsigned int pmd = fsim_ctx_arch(ctx)->pmd_order;
	const unsigned int order = fsim_folio_order(f);

	if (order < pmd || rnd(w, 4) != 0)
		return false;
	if (!fsim_mode_has(opt.mode, FSIM_HAS_ARBITRARY_MAPPINGS) && order != pmd)
		return false;
	r->level = FSIM_LEVEL_PMD;
	r->page = rnd(w, 1ul << (order - pmd)) << pmd;
	r->nr = 1ul << pmd;
	return true;
}

static int writer_add(struct writer *w, unsigned int s)
{
	struct fsim_folio *f = slots(s);
	const unsigned long nr = fsim_folio_nr_pages(f);
	struct record r;
	int err;

	if (!pick_pmd(w, f, &r)) {
		r.level = FSIM_LEVEL_PTE;
		r.page = rnd(w, nr);
		r.nr = 1 + rnd(w, nr - r.page < PTE_BATCH_MAX ? nr - r.page : PTE_BATCH_MAX);
	}
	turns_set_folio(f);
	if (fsim_folio_kind(f) == FSIM_KIND_ANON)
		err = fsim_folio_add_anon_rmap(f, w->mm, r.level, r.page, r.nr, false);
	else
		err = fsim_folio_add_file_rmap(f, w->mm, r.level, r.page, r.nr);
	if (!err)
		w->rec[s][w->nrec[s]++] = r;
	return err;
}

static int writer_remove(struct writer *w, unsigned int s, unsigned int k)
{
	struct record r = w->rec[s][k];

	turns_set_folio(slots(s));
	w->rec[s][k] = w->rec[s][--w->nrec[s]];
	return fsim_folio_remove_rmap(slots(s), w->mm, r.level, r.page, r.nr);
}

/* Pins race with the mapcount updates on _pincount and the refcount. */
static int writer_pin(struct writer *w, unsigned int s)
{
	turns_set_folio(slots(s));
	if (w->pins[s] && rnd(w, 2)) {
		w->pins[s]--;
		return fsim_folio_unpin(slots(s), 1);
	}
	w->pins[s]++;
	return fsim_folio_pin(slots(s), w->mm, 1);
}

static void writer_step(struct writer *w)
{
	unsigned int s = (unsigned int)rnd(w, NR_SLOTS);
	const char *what = "add";
	int err;

	writer_yield();
	if (rnd(w, 16) == 0) {
		what = "pin/unpin";
		err = writer_pin(w, s);
	} else if (w->nrec[s] == MAX_RECORDS || (w->nrec[s] && rnd(w, 2))) {
		what = "remove";
		err = writer_remove(w, s, (unsigned int)rnd(w, w->nrec[s]));
	} else {
		err = writer_add(w, s);
	}
	if (err)
		fail(what, fsim_errname(err), err);
	w->ops++;
}

/* Drops every mapping and pin the writer holds on slot @s. */
static void writer_release_slot(struct writer *w, unsigned int s)
{
	while (w->nrec[s])
		if (writer_remove(w, s, w->nrec[s] - 1))
			fail("release", "remove refused", 0);
	for (; w->pins[s]; w->pins[s]--)
		if (fsim_folio_unpin(slots(s), 1))
			fail("release", "unpin refused", 0);
}

static void *writer_phases(void *arg)
{
	struct writer *w = arg;
	unsigned long i;
	int s;

	while (!atomic_load(&stop_writers)) {
		for (i = 0; i < opt.ops; i++)
			writer_step(w);
		pthread_barrier_wait(&phase_barrier);	/* quiescent: main checks */
		pthread_barrier_wait(&phase_barrier);	/* main chose a slot */
		s = atomic_load(&retire_slot);
		if (s >= 0)
			writer_release_slot(w, (unsigned int)s);
		pthread_barrier_wait(&phase_barrier);	/* main retires it */
		pthread_barrier_wait(&phase_barrier);	/* next phase */
	}
	for (s = 0; s < NR_SLOTS; s++)
		writer_release_slot(w, (unsigned int)s);
	return NULL;
}

static void *writer_turns(void *arg)
{
	struct writer *w = arg;
	unsigned long i;
	int s;

	turns_enter(sched, w->id, true);
	for (i = 0; i < opt.ops; i++)
		writer_step(w);
	for (s = 0; s < NR_SLOTS; s++)
		writer_release_slot(w, (unsigned int)s);
	turns_exit(sched);
	return NULL;
}

/* ---- readers ----------------------------------------------------------- */

/* Upper bound of what a reader may see: every writer's records full of
 * the largest entries counted per page. */
static unsigned long read_bound(void)
{
	return (unsigned long)opt.writers * NR_SLOTS * MAX_RECORDS * PTE_BATCH_MAX + 1;
}

static void read_folio(const struct fsim_folio *f, uint64_t *rng)
{
	const unsigned long page = (unsigned long)(turns_rand(rng) % fsim_folio_nr_pages(f));
	const int mapcount = fsim_folio_mapcount(f);
	const unsigned long avg = fsim_folio_average_page_mapcount(f);
	const uint64_t kpc = fsim_kpagecount(f, page);
	bool shared = fsim_folio_maybe_mapped_shared(f);

	shared ^= fsim_pagemap_exclusive(f, page);
	(void)shared;	/* only the read matters: no torn-state crash */
	if (mapcount < 0 || (unsigned long)mapcount > read_bound() ||
	    avg > read_bound() || kpc > read_bound())
		fail("reader", "impossible mapcount/average/kpagecount", mapcount);
}

static void read_all(uint64_t *rng)
{
	unsigned int s;

	rcu_read_lock();
	for (s = 0; s < NR_SLOTS; s++) {
		struct fsim_folio *f = slot_deref(s);

		if (f)
			read_folio(f, rng);
	}
	tsan_release(&tsan_grace);	/* see tsan_annotate.h */
	rcu_read_unlock();
	atomic_fetch_add_explicit(&reads_done, NR_SLOTS, memory_order_relaxed);
}

static void *reader_main(void *arg)
{
	uint64_t rng = opt.seed ^ (uintptr_t)arg;
	unsigned long n = 0;

	rcu_register_thread();
	if (sched)
		turns_enter(sched, (unsigned int)(uintptr_t)arg, false);
	while (!atomic_load(&stop_readers)) {
		read_all(&rng);
		if (sched && (turns_yield(sched, "read"), ++n >= opt.ops))
			break;
	}
	if (sched)
		turns_exit(sched);
	rcu_unregister_thread();
	return NULL;
}

/* ---- folios and RCU retirement ---------------------------------------- */

static void free_retired(struct rcu_head *head)
{
	struct retired *r = caa_container_of(head, struct retired, head);
	int err;

	tsan_acquire(r);
	tsan_acquire(&tsan_grace);
	err = fsim_folio_free(r->folio);
	if (err)
		fail("free after grace period", fsim_errname(err), err);
	free(r);
	atomic_fetch_add(&frees_done, 1);
	tsan_release(&tsan_ctx);
}

static struct fsim_folio *new_folio(unsigned int s)
{
	struct fsim_folio *f;

	if (fsim_folio_create(ctx, slot_order[s], slot_kind[s], &f)) {
		fail("folio_create", "refused", 0);
		exit(1);
	}
	return f;
}

/* Replaces slot @s (unmapped by every writer) and frees the old folio
 * after a grace period. */
static void retire(unsigned int s)
{
	struct retired *r = malloc(sizeof(*r));

	if (!r)
		exit(1);
	r->folio = slots(s);
	slot_publish(s, new_folio(s));
	tsan_release(r);
	call_rcu(&r->head, free_retired);
}

/* Frees pending after rcu_barrier(): the list walk of fsim_check_ctx()
 * must not race with fsim_folio_free(). */
static void quiescent_check(const char *when)
{
	rcu_barrier();
	tsan_acquire(&tsan_ctx);
	check_ctx(when);
}

/* ---- the two modes ----------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long run_phases(pthread_t *wt)
{
	const double end = now() + opt.seconds;
	unsigned long phases = 0;
	unsigned int i;

	for (i = 0; i < opt.writers; i++)
		pthread_create(&wt[i], NULL, writer_phases, &writers[i]);
	for (;;) {
		pthread_barrier_wait(&phase_barrier);
		quiescent_check("at the end of a phase");
		phases++;
		atomic_store(&retire_slot, (int)(phases % NR_SLOTS));
		if (now() >= end)
			atomic_store(&stop_writers, true);
		pthread_barrier_wait(&phase_barrier);
		pthread_barrier_wait(&phase_barrier);	/* slot unmapped */
		retire((unsigned int)(phases % NR_SLOTS));
		pthread_barrier_wait(&phase_barrier);
		if (atomic_load(&stop_writers))
			break;
	}
	return phases;
}

static void run_turns(pthread_t *wt)
{
	unsigned int i;

	for (i = 0; i < opt.writers; i++)
		pthread_create(&wt[i], NULL, writer_turns, &writers[i]);
}

/* ---- setup and report -------------------------------------------------- */

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--mode legacy|base|rfc] [--writers N] [--readers N]\n"
		"       [--seconds S] [--long] [--turns] [--seed N] [--ops N] [--replay-check]\n",
		prog);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	int i;

	opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--long")) opt.seconds = 60;
		else if (!strcmp(a, "--turns")) opt.turns = true;
		else if (!strcmp(a, "--replay-check")) opt.replay_check = true;
		else if (!v) usage(argv[0]);
		else if (!strcmp(a, "--mode") && ++i) {
			if (fsim_mode_from_name(v, &opt.mode))
				usage(argv[0]);
		}
		else if (!strcmp(a, "--writers") && ++i) opt.writers = (unsigned int)atoi(v);
		else if (!strcmp(a, "--readers") && ++i) opt.readers = (unsigned int)atoi(v);
		else if (!strcmp(a, "--seconds") && ++i) opt.seconds = atof(v);
		else if (!strcmp(a, "--seed") && ++i) opt.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--ops") && ++i) opt.ops = strtoul(v, NULL, 0);
		else usage(argv[0]);
	}
	if (!opt.writers || opt.writers > MAX_WRITERS || opt.readers > MAX_READERS)
		usage(argv[0]);
}

static void setup(void)
{
	unsigned int i;

	if (fsim_ctx_create(opt.mode, NULL, &ctx))
		exit(1);
	fsim_ctx_set_concurrent(ctx, true);
	if (sched)
		fsim_ctx_set_sched_hook(ctx, turns_hook, sched);
	for (i = 0; i < NR_SLOTS; i++)
		slot_publish(i, new_folio(i));
	for (i = 0; i < opt.writers; i++) {
		memset(&writers[i], 0, sizeof(writers[i]));
		writers[i].id = i;
		writers[i].rng = opt.seed * 0x9e3779b97f4a7c15ull + i + 1;
		if (fsim_mm_create(ctx, 0, &writers[i].mm))
			exit(1);
	}
	atomic_store(&stop_readers, false);
	atomic_store(&stop_writers, false);
}

static void teardown(void)
{
	unsigned int i;

	rcu_barrier();
	tsan_acquire(&tsan_ctx);
	check_ctx("after the run");
	for (i = 0; i < NR_SLOTS; i++)
		if (fsim_folio_free(slots(i)))
			fail("final free", "refused", (long)i);
	for (i = 0; i < opt.writers; i++)
		if (fsim_mm_destroy(writers[i].mm))
			fail("mmdrop", "refused", (long)i);
	fsim_ctx_destroy(ctx);
}

/* One run; returns the turns trace hash (0 in the free-running mode). */
static uint64_t run_once(void)
{
	pthread_t wt[MAX_WRITERS], rt[MAX_READERS];
	unsigned long phases = 0, ops = 0;
	uint64_t hash = 0;
	double t0;
	unsigned int i;

	if (opt.turns && !(sched = turns_create(opt.writers + opt.readers, opt.seed,
						 turns_quiescent, NULL)))
		exit(1);
	setup();
	atomic_store(&reads_done, 0);
	atomic_store(&checks_done, 0);
	atomic_store(&frees_done, 0);
	t0 = now();
	for (i = 0; i < opt.readers; i++)
		pthread_create(&rt[i], NULL, reader_main, (void *)(uintptr_t)(opt.writers + i));
	if (opt.turns)
		run_turns(wt);
	else
		phases = run_phases(wt);
	for (i = 0; i < opt.writers; i++)
		pthread_join(wt[i], NULL);
	atomic_store(&stop_readers, true);
	for (i = 0; i < opt.readers; i++)
		pthread_join(rt[i], NULL);
	t0 = now() - t0;
	for (i = 0; i < opt.writers; i++)
		ops += writers[i].ops;
	teardown();
	printf("stress_rmap: %s %s, %u writers, %u readers, seed %" PRIu64 ": %lu rmap ops "
	       "(%.0f/s), %lu reads (%.0f/s), %lu phases, %lu checks, %lu RCU frees, %.2f s\n",
	       fsim_mode_name(opt.mode), opt.turns ? "turns" : "free-running", opt.writers,
	       opt.readers, opt.seed, ops, ops / t0, atomic_load(&reads_done),
	       atomic_load(&reads_done) / t0, phases, atomic_load(&checks_done),
	       atomic_load(&frees_done), t0);
	if (sched) {
		hash = turns_trace_hash(sched);
		printf("stress_rmap: turns: %" PRIu64 " switches, trace hash %016" PRIx64 "\n",
		       turns_switches(sched), hash);
		turns_destroy(sched);
		sched = NULL;
	}
	return hash;
}

int main(int argc, char **argv)
{
	uint64_t h1;

	parse_args(argc, argv);
	printf("stress_rmap: seed %" PRIu64 "\n", opt.seed);
	fflush(stdout);
	pthread_barrier_init(&phase_barrier, NULL, opt.writers + 1);
	rcu_register_thread();
	h1 = run_once();
	/* --replay-check: the same seed must give the same interleaving. */
	if (opt.turns && opt.replay_check && run_once() != h1)
		fail("--replay-check", "the same seed gave another interleaving", 0);
	rcu_unregister_thread();
	pthread_barrier_destroy(&phase_barrier);
	if (atomic_load(&failures)) {
		printf("stress_rmap: %d failures\n", atomic_load(&failures));
		return 1;
	}
	return 0;
}
