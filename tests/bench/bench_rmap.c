// SPDX-License-Identifier: MIT
/*
 * The rmap benchmark (issue 15): what one add+remove pair of the model
 * costs, oracle and checks on, against the floor (bench.h: a bit spinlock
 * around three counter RMWs, twice), by mode, level, nr and folio order;
 * the same pair beside K other mappings; legacy against rfc by nr.
 *
 *   bench_rmap [--rounds R] [--quick] [--plot-data FILE]
 *
 * Every configuration is set up once; each round then measures every
 * configuration in turn (interleaved), as thread CPU time per pair over
 * enough pairs to take about 20 ms (2 ms with --quick).  Prints one line
 * and one JSON line per figure (bench.h); --plot-data writes "nr legacy
 * rfc" (median ns per PTE pair on an order-9 anon folio) for
 * docs/gen-pair-nr-plot.sh model.  Exit 0 when every figure was measured, 1 when a
 * call of the library failed (a benchmark never judges a figure).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "foliosim/foliosim.h"

#define MAX_OTHERS 1024

/* One configuration: a folio in a steady state, and the pair run on it. */
struct pair_cfg {
	char name[80];
	bool floor;			/* the floor, not the model */
	enum fsim_mode mode;
	enum fsim_kind kind;
	unsigned int order;
	enum fsim_level level;
	unsigned long nr;		/* pages the pair maps and unmaps */
	unsigned int k_mms;		/* other mms, one page each */
	unsigned int k_pages;		/* one other mm, this many single pages */
	bool mm_in_middle;		/* the pair's mm id between the others' */

	struct bench_floor fl;
	struct fsim_ctx *ctx;
	struct fsim_folio *folio;
	struct fsim_mm *mm;		/* the one the pair runs in */
	unsigned long iters;
	struct bench_series ns;		/* CPU ns per pair, by round */
};

static void check(int err, const char *what)
{
	if (err)
		bench_die(what, err);
}

static void pair(struct pair_cfg *c)
{
	if (c->floor) {
		bench_floor_pair(&c->fl);
		return;
	}
	if (c->kind == FSIM_KIND_ANON)
		check(fsim_folio_add_anon_rmap(c->folio, c->mm, c->level, 0, c->nr,
					       false), "add_anon_rmap");
	else
		check(fsim_folio_add_file_rmap(c->folio, c->mm, c->level, 0, c->nr),
		      "add_file_rmap");
	check(fsim_folio_remove_rmap(c->folio, c->mm, c->level, 0, c->nr),
	      "remove_rmap");
}

/* An mm that maps single pages 1, 3, 5, ... (page 0 is the pair's): every
 * other page, so that the oracle cannot merge them into one segment. */
static void map_single_pages(struct pair_cfg *c, struct fsim_mm *mm,
			     unsigned long first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		check(fsim_folio_add_file_rmap(c->folio, mm, FSIM_LEVEL_PTE,
					       1 + 2 * ((first + i) % (fsim_folio_nr_pages(c->folio) / 2 - 1)),
					       1),
		      "add_file_rmap (other)");
}

static void setup(struct pair_cfg *c)
{
	struct fsim_mm *holder, *other;
	unsigned int i;

	if (c->floor)
		return;
	check(fsim_ctx_create(c->mode, NULL, &c->ctx), "ctx_create");
	check(fsim_folio_create(c->ctx, c->order, c->kind, &c->folio), "folio_create");
	if (!c->mm_in_middle)
		check(fsim_mm_create(c->ctx, 0, &c->mm), "mm_create");
	/* An anon folio is mapped by its faulting mm first, as a THP is. */
	if (c->kind == FSIM_KIND_ANON) {
		check(fsim_mm_create(c->ctx, 0, &holder), "mm_create");
		check(fsim_folio_add_new_anon_rmap(c->folio, holder, false),
		      "add_new_anon_rmap");
	}
	for (i = 0; i < c->k_mms; i++) {
		/* mm ids order the oracle's records: in the middle, half of
		 * them sort before the pair's */
		if (c->mm_in_middle && i == c->k_mms / 2)
			check(fsim_mm_create(c->ctx, 0, &c->mm), "mm_create");
		check(fsim_mm_create(c->ctx, 0, &other), "mm_create");
		map_single_pages(c, other, i, 1);
	}
	if (c->k_pages) {
		check(fsim_mm_create(c->ctx, 0, &other), "mm_create");
		map_single_pages(c, other, 0, c->k_pages);
	}
}

static double measure(struct pair_cfg *c)
{
	double t0 = bench_cpu_ns();
	unsigned long i;

	for (i = 0; i < c->iters; i++)
		pair(c);
	return (bench_cpu_ns() - t0) / (double)c->iters;
}

/* Enough pairs for about target_ns of CPU time. */
static void calibrate(struct pair_cfg *c, double target_ns)
{
	double per;

	c->iters = 16;
	per = measure(c);
	if (per <= 0)
		per = 1;
	c->iters = (unsigned long)(target_ns / per) + 1;
}

static struct pair_cfg *add_cfg(struct pair_cfg *cfgs, size_t *n, struct pair_cfg c)
{
	cfgs[*n] = c;
	return &cfgs[(*n)++];
}

static struct pair_cfg model(enum fsim_mode mode, enum fsim_kind kind,
			     unsigned int order, enum fsim_level level,
			     unsigned long nr)
{
	struct pair_cfg c;

	memset(&c, 0, sizeof(c));
	c.mode = mode;
	c.kind = kind;
	c.order = order;
	c.level = level;
	c.nr = nr;
	snprintf(c.name, sizeof(c.name), "%s %s order-%u %s nr=%lu",
		 fsim_mode_name(mode), fsim_kind_name(kind), order,
		 fsim_level_name(level), nr);
	return c;
}

static const unsigned long plot_nrs[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
#define NR_PLOT (sizeof(plot_nrs) / sizeof(plot_nrs[0]))
#define MAX_CFGS 64

struct bench {
	struct pair_cfg cfg[MAX_CFGS];
	size_t n;
	struct pair_cfg *floor;
	struct pair_cfg *pte[3][NR_PLOT];	/* by mode index, by plot_nrs */
	struct pair_cfg *pmd[3], *mthp1[3], *mthp16[3];
	struct pair_cfg *k0[2], *kmms[2], *kmid[2], *kpages[2];	/* legacy, rfc */
};

static void build(struct bench *b)
{
	struct pair_cfg c;
	unsigned int m, i;

	memset(&c, 0, sizeof(c));
	c.floor = true;
	snprintf(c.name, sizeof(c.name), "floor");
	b->floor = add_cfg(b->cfg, &b->n, c);
	for (m = 0; m < 3; m++) {
		enum fsim_mode mode = fsim_mode_at(m);

		for (i = 0; i < NR_PLOT; i++)
			b->pte[m][i] = add_cfg(b->cfg, &b->n, model(mode, FSIM_KIND_ANON, 9,
						FSIM_LEVEL_PTE, plot_nrs[i]));
		b->pmd[m] = add_cfg(b->cfg, &b->n, model(mode, FSIM_KIND_ANON, 9,
							  FSIM_LEVEL_PMD, 512));
		b->mthp1[m] = add_cfg(b->cfg, &b->n, model(mode, FSIM_KIND_ANON, 4,
							    FSIM_LEVEL_PTE, 1));
		b->mthp16[m] = add_cfg(b->cfg, &b->n, model(mode, FSIM_KIND_ANON, 4,
							     FSIM_LEVEL_PTE, 16));
	}
	for (m = 0; m < 2; m++) {
		enum fsim_mode mode = m ? FSIM_MODE_RFC : FSIM_MODE_LEGACY;

		c = model(mode, FSIM_KIND_FILE, 12, FSIM_LEVEL_PTE, 1);
		strcat(c.name, " K=0");
		b->k0[m] = add_cfg(b->cfg, &b->n, c);
		c.k_mms = MAX_OTHERS;
		snprintf(c.name, sizeof(c.name), "%s file order-12 pte nr=1 K=%u mms",
			 fsim_mode_name(mode), c.k_mms);
		b->kmms[m] = add_cfg(b->cfg, &b->n, c);
		c.mm_in_middle = true;
		snprintf(c.name, sizeof(c.name), "%s file order-12 pte nr=1 K=%u mms, id in the middle",
			 fsim_mode_name(mode), c.k_mms);
		b->kmid[m] = add_cfg(b->cfg, &b->n, c);
		c.mm_in_middle = false;
		c.k_mms = 0;
		c.k_pages = MAX_OTHERS;
		snprintf(c.name, sizeof(c.name), "%s file order-12 pte nr=1 K=%u pages",
			 fsim_mode_name(mode), c.k_pages);
		b->kpages[m] = add_cfg(b->cfg, &b->n, c);
	}
}

static void vs(const char *name, struct pair_cfg *a, struct pair_cfg *bb,
	       double target, bool at_most)
{
	struct bench_figure f = {
		.bench = "rmap", .name = name, .unit = "ns/pair",
		.a_label = a->name, .b_label = bb->name, .a = &a->ns, .b = &bb->ns,
		.target = target, .at_most = at_most,
	};

	bench_report(&f);
}

static void report(struct bench *b)
{
	char name[96];
	unsigned int m, i;

	for (m = 0; m < 3; m++) {
		const char *mode = fsim_mode_name(fsim_mode_at(m));

		for (i = 0; i < NR_PLOT; i++) {
			snprintf(name, sizeof(name), "%s pte pair nr=%lu / floor", mode,
				 plot_nrs[i]);
			/* issue 15: the series' pair of one PTE (no per-page
			 * mapcount) <= 1.5x the floor */
			vs(name, b->pte[m][i], b->floor,
			   !fsim_mode_has(fsim_mode_at(m), FSIM_HAS_PAGE_MAPCOUNT) &&
			   i == 0 ? 1.5 : 0, true);
		}
		snprintf(name, sizeof(name), "%s pmd pair / floor", mode);
		vs(name, b->pmd[m], b->floor, 0, true);
		snprintf(name, sizeof(name), "%s mthp-64k pte nr=1 / floor", mode);
		vs(name, b->mthp1[m], b->floor, 0, true);
		snprintf(name, sizeof(name), "%s mthp-64k pte nr=16 / floor", mode);
		vs(name, b->mthp16[m], b->floor, 0, true);
	}
	for (i = 0; i < NR_PLOT; i++) {
		snprintf(name, sizeof(name), "legacy / rfc pte nr=%lu", plot_nrs[i]);
		/* issue 15: >= 50x at a 512-PTE batch */
		vs(name, b->pte[0][i], b->pte[2][i], plot_nrs[i] == 512 ? 50 : 0,
		   false);
	}
	for (m = 0; m < 2; m++) {
		const char *mode = m ? "rfc" : "legacy";

		/* issue 15: within 2x of K=0 */
		snprintf(name, sizeof(name), "%s K=%u other mms / K=0", mode, MAX_OTHERS);
		vs(name, b->kmms[m], b->k0[m], 2, true);
		snprintf(name, sizeof(name), "%s K=%u other mms (mid id) / K=0", mode, MAX_OTHERS);
		vs(name, b->kmid[m], b->k0[m], 2, true);
		snprintf(name, sizeof(name), "%s K=%u other pages / K=0", mode, MAX_OTHERS);
		vs(name, b->kpages[m], b->k0[m], 2, true);
	}
}

static int write_plot_data(const struct bench *b, const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f) {
		fprintf(stderr, "bench_rmap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# nr  legacy_ns  base_ns  rfc_ns  floor_ns  (median ns per add+remove"
		   " pair of nr PTEs, order-9 anon folio; bench_rmap)\n");
	for (i = 0; i < NR_PLOT; i++)
		fprintf(f, "%lu %.1f %.1f %.1f %.1f\n", plot_nrs[i],
			bench_median(&b->pte[0][i]->ns), bench_median(&b->pte[1][i]->ns),
			bench_median(&b->pte[2][i]->ns), bench_median(&b->floor->ns));
	return fclose(f) ? -1 : 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench_rmap [--rounds R] [--quick] [--plot-data FILE]\n"
		"  Add+remove pairs of the model (oracle on) against the floor, by mode,\n"
		"  level, nr and order; beside 1024 other mappings; legacy against rfc.\n"
		"  --rounds R        rounds (default 9, at most %d); configurations\n"
		"                    interleave within each round\n"
		"  --quick           2 ms per measurement instead of 20 (smoke test)\n"
		"  --plot-data FILE  write nr/legacy/base/rfc/floor medians for the plot\n",
		BENCH_MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	static struct bench b;
	unsigned int rounds = 9, r;
	double target_ns = 20e6;
	const char *plot = NULL;
	size_t i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
			rounds = (unsigned int)strtoul(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--quick")) {
			target_ns = 2e6;
		} else if (!strcmp(argv[a], "--plot-data") && a + 1 < argc) {
			plot = argv[++a];
		} else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (rounds < 1 || rounds > BENCH_MAX_ROUNDS) {
		fprintf(stderr, "bench_rmap: --rounds must be 1..%d\n", BENCH_MAX_ROUNDS);
		return 2;
	}
	build(&b);
	for (i = 0; i < b.n; i++) {
		setup(&b.cfg[i]);
		calibrate(&b.cfg[i], target_ns);
	}
	fprintf(stderr, "bench_rmap: %zu configurations, %u rounds\n", b.n, rounds);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < b.n; i++)
			bench_series_add(&b.cfg[i].ns, measure(&b.cfg[i]));
	report(&b);
	for (i = 0; i < b.n; i++)
		if (b.cfg[i].ctx)
			fsim_ctx_destroy(b.cfg[i].ctx);
	return plot && write_plot_data(&b, plot) ? 1 : 0;
}
