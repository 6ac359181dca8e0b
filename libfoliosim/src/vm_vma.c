// SPDX-License-Identifier: MIT
/*
 * Changes to a region's VMAs that keep its pages mapped: mprotect(), which
 * splits a VMA (and so a PMD mapping straddling the cut) and merges it back,
 * and mremap(), which moves page tables without touching the rmap unless
 * the move breaks PMD alignment.
 */
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

/* split_huge_pmd_if_needed(): a cut at page @x of the VMA [s, e) that is
 * not PMD-aligned splits the PMD mapping around it, if the VMA covers it. */
static void split_pmd_at(struct fsim_process *p, struct region *r, unsigned long x,
			 unsigned long s, unsigned long e)
{
	const unsigned long n = pmd_nr(p), base = x - x % n;
	const struct pte_entry *ent = &r->e[base];

	if (r->hugetlb || x % n == 0 || base < s || base + n > e)
		return;
	if (ent->level == FSIM_LEVEL_PMD && (ent->folio || ent->zero))
		split_pmd(p, r, base);
}

/* __split_vma() of the VMA holding page @x at @x, when mprotect_fixup()
 * changes its flags to @v (else it leaves the VMA alone). */
static void split_vma_at(struct fsim_process *p, struct region *r, unsigned long x,
			 unsigned char v)
{
	unsigned long s, e;

	if (x >= r->npages || !r->live[x] || r->live[x] == v)
		return;
	vma_bounds(r, x, &s, &e);
	if (s < x)
		split_pmd_at(p, r, x, s, e);
}

/* do_mprotect_pkey() -> mprotect_fixup() -> change_protection(): entries
 * stay; a write-protected page stays so until a write fault, an exclusive
 * one the kernel makes writable again (can_change_pte_writable()), as the
 * model's entries already say. */
int fsim_process_mprotect(struct fsim_process *p, const char *name, uint64_t off,
			  uint64_t len, unsigned int prot)
{
	struct region *r = find_region(p, name);
	unsigned long a, b, i;
	unsigned char v;
	int err = page_range(p, r, off, len, &a, &b);

	if (err)
		return err;
	if (prot & ~(FSIM_PROT_READ | FSIM_PROT_WRITE))
		return -EINVAL;
	if (prot & FSIM_PROT_WRITE)
		prot |= FSIM_PROT_READ;
	for (i = a; i < b; i++)
		if (!r->live[i])
			return -ENOMEM;	/* a hole in the range */
	if (r->hugetlb && ((a | b) & ((1ul << r->order) - 1)))
		return -EINVAL;	/* hugetlb_vm_op_split() */
	v = (unsigned char)(VMA_LIVE | prot);
	split_vma_at(p, r, a, v);
	if (b < r->npages && r->live[b] == r->live[b - 1])
		split_vma_at(p, r, b, v);
	memset(r->live + a, v, b - a);
	return 0;
}

/* Splits every PMD mapping of @r (move_page_tables() with an extent below
 * a PMD: split_huge_pmd()). */
static void split_all_pmds(struct fsim_process *p, struct region *r)
{
	const unsigned long n = pmd_nr(p);
	unsigned long i;

	for (i = 0; i + n <= r->npages; i += n)
		if (r->e[i].level == FSIM_LEVEL_PMD && (r->e[i].folio || r->e[i].zero))
			split_pmd(p, r, i);
}

/* The page tables of @from move to @to: the arrays swap, @from keeps
 * fresh empty ones (its range is unmapped, its tables freed). */
static void move_tables(struct region *from, struct region *to)
{
	struct pte_entry *e = from->e;
	unsigned char *live = from->live, *tables = from->pte_table;

	from->e = to->e;
	from->live = to->live;
	from->pte_table = to->pte_table;
	to->e = e;
	to->live = live;
	to->pte_table = tables;
}

/* mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of a whole one-VMA region:
 * move_vma() -> move_page_tables(); anon folios keep their rmap (the
 * anon_vma moves with the VMA). */
int fsim_process_mremap(struct fsim_process *p, const char *name, const char *to,
			bool keep_pmd)
{
	struct region *r = find_region(p, name), *d;
	unsigned long i;

	if (!r || !to || !*to)
		return -EINVAL;
	if (find_region(p, to))
		return -EEXIST;
	for (i = 0; i < r->npages; i++)
		if (!r->live[i] || r->live[i] != r->live[0])
			return -EFAULT;	/* vma_to_resize(): not one VMA */
	if (r->hugetlb && !keep_pmd)
		return -EINVAL;	/* a huge page needs an aligned address */
	d = region_alloc(to, r->npages, pmd_nr(p));
	if (!d)
		return -ENOMEM;
	if (!keep_pmd)
		split_all_pmds(p, r);
	move_tables(r, d);
	d->shmem = r->shmem;
	d->file = r->file;
	d->hugetlb = r->hugetlb;
	d->anon_vma = r->anon_vma;
	d->shm = r->shm;
	if (d->shm)
		d->shm->refs++;
	d->order = r->order;
	d->pmd_shift = r->pmd_shift;
	d->misaligned = r->misaligned || !keep_pmd;
	if (d->misaligned)	/* no PMD fits where no PMD is aligned: tables */
		memset(d->pte_table, 1, d->npages / pmd_nr(p) + 1);
	d->next = p->regions;
	p->regions = d;
	return 0;
}
