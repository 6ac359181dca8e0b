// SPDX-License-Identifier: MIT
/*
 * partial_miss: how many partially mapped anonymous folios each kernel
 * fails to flag for deferred split, and how much memory that keeps, over
 * random process workloads (issue 16; docs/partial-detect.md).
 *
 * A workload is a family of operations on a heap of large folios shared
 * by K processes (fork), run the same way (same seed) in 6.12, in the
 * series and in the series with the detect part, for STEPS operations per
 * process (K x STEPS in all, so that every sharer acts alike).  SAMPLES
 * times, evenly spaced, the model is read as the kernel would leave it:
 *   partial  anon folios of order >= 2 mapped in part (the oracle's truth)
 *   missed   of those, the ones deferred split will never see: not flagged
 *            and (detect part) not queued as a candidate, whose walk by
 *            the next scan is exact (tests/unit/test_detect.c)
 *   pages    the unmapped pages of the missed folios: memory a split would
 *            free and AnonPages still counts
 * Output: one TSV line per family, sharers and kernel (sums over seeds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <foliosim/process.h>

#define MAX_PROCS 64
#define HEAP "heap"

enum family { FORK_UNMAP, FORK_TREE, COW, MTHP, NR_FAMILIES };
static const char *const family_name[] = { "fork-unmap", "fork-tree", "cow", "mthp" };

enum kernel { K_612, K_SERIES, K_DETECT, NR_KERNELS };
static const char *const kernel_name[] = { "6.12", "series", "series+detect" };

struct params {
	unsigned int seeds, steps, samples;
};

struct tally {
	uint64_t samples, partial, missed, missed_pages;
};

struct world {
	struct fsim_ctx *ctx;
	struct fsim_process *proc[MAX_PROCS];
	unsigned int nproc;
	uint64_t rng;
	unsigned int order;		/* of the heap's folios */
	uint64_t heap_bytes;
	uint64_t refused;		/* ranges over holes, accesses after munmap */
};

static uint64_t next(struct world *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static uint64_t below(struct world *w, uint64_t n)
{
	return next(w) % n;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "partial_miss: %s: %s\n", what, fsim_errname(err));
	exit(1);
}

/* The kernel refuses a range over a hole (madvise -ENOMEM) and the
 * process would fault on an access there (-EFAULT): the generator drew a
 * range that no longer exists, which is not an error of the model. */
static void expect_ok(struct world *w, const char *what, int err)
{
	if (err == -ENOMEM || err == -EFAULT)
		w->refused++;
	else if (err)
		die(what, err);
}

/* A random page range inside one folio-aligned chunk of the heap. */
static void pick_range(struct world *w, uint64_t *off, uint64_t *len)
{
	const uint64_t chunk = (uint64_t)4096 << w->order;
	const uint64_t pages = chunk / 4096;
	uint64_t first = below(w, pages), n = 1 + below(w, pages - first);

	*off = below(w, w->heap_bytes / chunk) * chunk + first * 4096;
	*len = n * 4096;
}

static void fork_one(struct world *w, unsigned int parent)
{
	int err;

	if (w->nproc == MAX_PROCS)
		return;
	err = fsim_process_fork(w->proc[parent], &w->proc[w->nproc]);
	if (err)
		die("fork", err);
	w->nproc++;
}

/* Process 0 lives throughout; a child may exit. */
static void exit_one(struct world *w)
{
	unsigned int i;

	if (w->nproc < 2)
		return;
	i = 1 + (unsigned int)below(w, w->nproc - 1);
	fsim_process_exit(w->proc[i]);
	w->proc[i] = w->proc[--w->nproc];
}

static void step(struct world *w, enum family fam, unsigned int sharers)
{
	struct fsim_process *p = w->proc[below(w, w->nproc)];
	unsigned int dice = (unsigned int)below(w, 100);
	uint64_t off, len;

	pick_range(w, &off, &len);
	if (fam == FORK_TREE && w->nproc < sharers && dice < 15) {
		fork_one(w, (unsigned int)below(w, w->nproc));
	} else if (dice < 3) {
		exit_one(w);
	} else if (fam == COW && dice < 40) {
		expect_ok(w, "touch", fsim_process_access(p, HEAP, off, len, true));
	} else if (dice < 75) {
		expect_ok(w, "munmap", fsim_process_munmap(p, HEAP, off, len));
	} else {
		expect_ok(w, "dontneed", fsim_process_dontneed(p, HEAP, off, len));
	}
}

struct folio_set {
	struct fsim_folio **f;
	size_t n, cap;
};

static void collect(void *arg, struct fsim_folio *f)
{
	struct folio_set *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->f = realloc(s->f, s->cap * sizeof(*s->f));
		if (!s->f)
			die("collect", -ENOMEM);
	}
	s->f[s->n++] = f;
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct fsim_folio *const *)a;
	uintptr_t y = (uintptr_t)*(struct fsim_folio *const *)b;

	return x < y ? -1 : x > y;
}

/* Pages of @f some page table maps (the oracle's truth). */
static unsigned long covered_pages(const struct fsim_folio *f)
{
	unsigned long i, n = 0, nr = fsim_folio_nr_pages(f);

	for (i = 0; i < nr; i++)
		n += fsim_oracle_true_mapcount(f, i) > 0;
	return n;
}

static void sample(struct world *w, bool detect, struct tally *t)
{
	struct folio_set s = { 0 };
	size_t i;

	for (i = 0; i < w->nproc; i++)
		fsim_process_region_folios(w->proc[i], HEAP, collect, &s);
	if (s.n > 1)	/* (qsort() of no array: s.f is NULL then) */
		qsort(s.f, s.n, sizeof(*s.f), by_address);
	t->samples++;
	for (i = 0; i < s.n; i++) {
		struct fsim_folio *f = s.f[i];
		unsigned long nr = fsim_folio_nr_pages(f), cov;
		bool found;

		if ((i && f == s.f[i - 1]) || fsim_folio_kind(f) != FSIM_KIND_ANON ||
		    fsim_folio_order(f) < 2)
			continue;
		cov = covered_pages(f);
		if (!cov || cov == nr)
			continue;
		t->partial++;
		found = fsim_folio_partially_mapped(f) ||
			(detect && fsim_folio_on_deferred_split(f));
		if (!found) {
			t->missed++;
			t->missed_pages += nr - cov;
		}
	}
	free(s.f);
}

static void run(enum family fam, unsigned int sharers, enum kernel k,
		uint64_t seed, const struct params *pp, struct tally *t)
{
	struct world w = { .rng = seed * 0x9e3779b97f4a7c15ull + 1 };
	enum fsim_mode mode = k == K_612 ? FSIM_MODE_LEGACY : FSIM_MODE_RFC;
	const unsigned int total = pp->steps * sharers;
	unsigned int s, every = total / pp->samples ? total / pp->samples : 1;
	int err;

	w.order = fam == MTHP ? 4 : 9;
	w.heap_bytes = 4 * ((uint64_t)4096 << w.order);
	if ((err = fsim_ctx_create(mode, NULL, &w.ctx)) ||
	    (err = fsim_ctx_set_detect(w.ctx, k == K_DETECT)) ||
	    (err = fsim_process_create(w.ctx, &w.proc[0])))
		die("setup", err);
	w.nproc = 1;
	if ((err = fsim_process_mmap(w.proc[0], HEAP, w.heap_bytes, false, w.order)) ||
	    (err = fsim_process_access(w.proc[0], HEAP, 0, w.heap_bytes, true)))
		die("heap", err);
	while (fam != FORK_TREE && w.nproc < sharers)
		fork_one(&w, 0);
	for (s = 1; s <= total; s++) {
		step(&w, fam, sharers);
		if (s % every == 0)
			sample(&w, k == K_DETECT, t);
	}
	if ((err = fsim_check_ctx(w.ctx, NULL)))
		die("the model's invariants", err);
	while (w.nproc)
		fsim_process_exit(w.proc[--w.nproc]);
	fsim_ctx_destroy(w.ctx);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: partial_miss [--seeds N] [--steps N] [--samples N]\n"
		"Random process workloads (fork-unmap, fork-tree, cow, mthp) shared by\n"
		"1..32 processes, each run in 6.12, the series and the series with the\n"
		"detect part; prints, per family, sharers and kernel, the partially\n"
		"mapped anonymous folios seen, those deferred split misses, and the\n"
		"pages those keep (TSV; sums over seeds).  --steps: operations per\n"
		"process; --samples: readings per run, evenly spaced.\n"
		"Defaults: --seeds 8 --steps 100 --samples 20.\n");
}

static bool parse_args(int argc, char **argv, struct params *pp)
{
	for (int i = 1; i < argc; i++) {
		unsigned int *dst = !strcmp(argv[i], "--seeds") ? &pp->seeds :
				    !strcmp(argv[i], "--steps") ? &pp->steps :
				    !strcmp(argv[i], "--samples") ? &pp->samples : NULL;
		char *end;
		unsigned long v;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!dst || i + 1 == argc) {
			usage(stderr);
			return false;
		}
		v = strtoul(argv[++i], &end, 10);
		if (*end || !v || v > 100000) {
			fprintf(stderr, "partial_miss: %s wants 1..100000\n", argv[i - 1]);
			return false;
		}
		*dst = (unsigned int)v;
	}
	return true;
}

int main(int argc, char **argv)
{
	static const unsigned int sharers[] = { 1, 2, 4, 8, 16, 32 };
	struct params pp = { .seeds = 8, .steps = 100, .samples = 20 };

	if (!parse_args(argc, argv, &pp))
		return 2;
	printf("family\tsharers\tkernel\tsamples\tpartial\tmissed\tmiss_rate_pct\t"
	       "missed_kb_per_sample\n");
	for (int fam = 0; fam < NR_FAMILIES; fam++)
		for (size_t s = 0; s < sizeof(sharers) / sizeof(*sharers); s++)
			for (int k = 0; k < NR_KERNELS; k++) {
				struct tally t = { 0 };

				for (uint64_t seed = 0; seed < pp.seeds; seed++)
					run((enum family)fam, sharers[s], (enum kernel)k,
					    seed, &pp, &t);
				printf("%s\t%u\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				       "\t%.1f\t%.1f\n", family_name[fam], sharers[s],
				       kernel_name[k], t.samples, t.partial, t.missed,
				       t.partial ? 100.0 * (double)t.missed / (double)t.partial : 0.0,
				       t.samples ? 4.0 * (double)t.missed_pages / (double)t.samples
						 : 0.0);
			}
	return 0;
}
