// SPDX-License-Identifier: MIT
/* gfuzz: comparing what the model says /proc must show with what the
 * kernel showed (kpagecount, bit 56, smaps). */
#define _GNU_SOURCE
#include "gfuzz.h"

/* ---------------------------------------------------------------- */
/* Comparing what /proc shows                                        */
/* ---------------------------------------------------------------- */

static void gf_dump_folio(struct gfuzz *g, uint32_t idx)
{
	const struct gf_folio *gf = &g->folios.v[idx];
	struct fsim_slot slots[2];
	bool shared_bit;
	size_t i, n;

	printf("#   model folio %#" PRIx64 " order %u: mapcount %d, total mapped pages %" PRIu64
	       ", maybe shared %s, refcount %" PRId64 "\n", gf->head, gf->order,
	       fsim_folio_mapcount(gf->f), fsim_folio_total_mapped_pages(gf->f),
	       fsim_folio_maybe_mapped_shared(gf->f) ? "yes" : "no", fsim_folio_refcount(gf->f));
	if (!fsim_folio_slots(gf->f, slots, &shared_bit))
		printf("#   slots: [%u: %d] [%u: %d], shared bit %d\n", slots[0].mm_id,
		       slots[0].mapcount, slots[1].mm_id, slots[1].mapcount, shared_bit);
	printf("#   entries observed:");
	for (i = 0, n = 0; i < g->cur.n; i++)
		if (g->cur.v[i].folio == idx && n++ < 64)
			printf(" %s:%s@%u", g->procs[g->cur.v[i].proc].name,
			       fsim_level_name((enum fsim_level)g->cur.v[i].level),
			       g->cur.v[i].page);
	printf(n > 64 ? " ... (%zu in all)\n" : "\n", n);
}

void gf_mismatch(struct gfuzz *g, const struct gf_page *pg, enum gf_what what,
			const char *fmt, ...)
{
	const struct gf_proc *p = &g->procs[pg->proc];
	const struct gf_region *r = NULL;
	va_list ap;
	int k;

	g->mismatches++;
	g->by_what[what]++;
	if (g->mismatches > GF_MAX_REPORTED)
		return;
	for (k = 0; k < p->nreg; k++)
		if (pg->va >= p->reg[k].addr && pg->va < p->reg[k].addr + p->reg[k].size)
			r = &p->reg[k];
	printf("gfuzz: MISMATCH at step %lu (%s): %s %s+%#lx", g->step, g->op, p->name,
	       r ? r->name : "?", r ? (unsigned long)(pg->va - r->addr) : 0ul);
	if (pg->pfn)	/* a page, not a VMA */
		printf(" pfn %#" PRIx64 " (%s)", pg->pfn, pg->pmd ? "pmd" : "pte");
	printf(": ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (g->mismatches == 1) {
		printf("# the first mismatch in full: steps before it, newest first:\n");
		for (k = 0; k < GF_HISTORY && g->history[k][0]; k++)
			printf("#   %s\n", g->history[k]);
		if (pg->folio != UINT32_MAX)
			gf_dump_folio(g, pg->folio);
	}
}

void gf_compare_pages(struct gfuzz *g)
{
	size_t i;

	for (i = 0; i < g->pages.n; i++) {
		const struct gf_page *pg = &g->pages.v[i];
		const struct fsim_folio *f;
		uint64_t count;
		bool excl;

		if (pg->folio == UINT32_MAX) {
			/* The zeropages: never rmap-mapped folios.  kpagecount
			 * reads their mapcount; pte_to_pagemap_entry() gives no
			 * bit 56 (vm_normal_page() is NULL), pagemap_pmd_range()
			 * asks the huge zero folio: the library's one rule. */
			f = pg->pmd ? g->huge_zero : g->zero;
			count = fsim_kpagecount(f, pg->pmd ? (pg->va & (PMD_BYTES - 1)) / PAGE : 0);
			excl = pg->pmd && fsim_huge_zero_pmd_exclusive(g->ctx);
		} else {
			f = g->folios.v[pg->folio].f;
			count = fsim_kpagecount(f, pg->fpage);
			excl = fsim_pagemap_exclusive(f, pg->fpage);
		}
		g->pages_checked++;
		g->pmd_pages += pg->pmd && pg->folio != UINT32_MAX;
		g->zero_pages += pg->folio == UINT32_MAX && !pg->pmd;
		g->huge_zero_pages += pg->folio == UINT32_MAX && pg->pmd;
		if (count != pg->kcount)
			gf_mismatch(g, pg, MM_KPAGECOUNT, "kpagecount: kernel %" PRIu64 ", model %" PRIu64,
				    pg->kcount, count);
		if (excl != pg->kexcl)
			gf_mismatch(g, pg, pg->folio == UINT32_MAX ? MM_EXCLUSIVE_ZERO : MM_EXCLUSIVE,
				    "pagemap bit 56 (PM_MMAP_EXCLUSIVE): kernel %d, model %d",
				    pg->kexcl, excl);
	}
}

static void gf_model_vma(struct gfuzz *g, int proc, uintptr_t a, uintptr_t b,
			 struct smaps_vma *out)
{
	struct fsim_smaps acc;
	size_t i;

	memset(&acc, 0, sizeof(acc));
	/* g->pages is sorted by process and address: find the first page */
	{
		size_t lo = 0, hi = g->pages.n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct gf_page *m = &g->pages.v[mid];

			if (m->proc < proc || (m->proc == proc && m->va < a))
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	for (; i < g->pages.n && g->pages.v[i].proc == proc && g->pages.v[i].va < b; i++) {
		const struct gf_page *pg = &g->pages.v[i];

		/* smaps_pte_entry()/smaps_pmd_entry(): the zeropages are not
		 * vm_normal_page(); a PMD counts once, at its first page */
		if (pg->proc != proc || pg->va < a || pg->va >= b || pg->folio == UINT32_MAX ||
		    (pg->pmd && pg->fpage))
			continue;
		fsim_smaps_account(g->folios.v[pg->folio].f,
				   pg->pmd ? FSIM_LEVEL_PMD : FSIM_LEVEL_PTE, pg->fpage, true, &acc);
	}
	/* __show_smap(): SEQ_PUT_DEC() prints bytes >> 10 */
	out->rss = (long long)(acc.resident >> 10);
	out->pss = (long long)(acc.pss >> (FSIM_PSS_SHIFT + 10));
	out->private_kb = (long long)((acc.private_clean >> 10) + (acc.private_dirty >> 10));
	out->shared_kb = (long long)((acc.shared_clean >> 10) + (acc.shared_dirty >> 10));
	out->anon_huge = (long long)(acc.anonymous_thp >> 10);
}

static bool gf_in_region(const struct gf_proc *p, uintptr_t a, uintptr_t b)
{
	int k;

	for (k = 0; k < p->nreg; k++)
		if (a >= p->reg[k].addr && b <= p->reg[k].addr + p->reg[k].size)
			return true;
	return false;
}

static void gf_compare_vma(struct gfuzz *g, int proc, uintptr_t a, uintptr_t b,
			   const struct smaps_vma *k)
{
	struct smaps_vma m;
	struct gf_page pg = { proc, a, 0, UINT32_MAX, 0, false, false, 0 };

	gf_model_vma(g, proc, a, b, &m);
	g->vmas_checked++;
	if (m.rss != k->rss || m.pss != k->pss || m.private_kb != k->private_kb ||
	    m.shared_kb != k->shared_kb || m.anon_huge != k->anon_huge)
		gf_mismatch(g, &pg, MM_SMAPS, "smaps of VMA %#lx-%#lx: kernel Rss %lld Pss %lld Private %lld "
			    "Shared %lld AnonHugePages %lld kB, model %lld %lld %lld %lld %lld kB",
			    (unsigned long)a, (unsigned long)b, k->rss, k->pss, k->private_kb,
			    k->shared_kb, k->anon_huge, m.rss, m.pss, m.private_kb, m.shared_kb,
			    m.anon_huge);
}

struct smaps_cmp {
	struct gfuzz *g;
	int proc;
};

static void gf_smaps_vma(void *arg, const struct smaps_vma *k)
{
	struct smaps_cmp *c = arg;

	if (gf_in_region(&c->g->procs[c->proc], k->start, k->end))
		gf_compare_vma(c->g, c->proc, k->start, k->end, k);
}

void gf_compare_smaps(struct gfuzz *g, int proc)
{
	struct smaps_cmp c = { g, proc };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)g->procs[proc].pid);
	if (!read_whole_file(path, &g->smaps, &g->smaps_cap)) {
		gf_fatal(g, "cannot read %s", path);
		return;
	}
	smaps_parse(g->smaps, gf_smaps_vma, &c);
}
