// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: the model mode of the tree the kernel half was
 * built from, decided by what the tree has (kh_tree()->features), as
 * kernel-port/scripts/lib.sh's kernel_mode() decides it from the parts:
 * per-page mapcounts and MM slots = base, no MM slots = legacy (6.12),
 * no per-page mapcounts (the rfc part, or the prep part with
 * CONFIG_NO_PAGE_MAPCOUNT=y) = rfc.
 */
#include <stdio.h>

#include <foliosim/scenario.h>

#include "kh_harness.h"

enum fsim_mode kh_tree_mode(void)
{
	const unsigned int f = kh_tree()->features;

	if (!(f & KH_HAS_MM_SLOTS))
		return FSIM_MODE_LEGACY;
	if (f & KH_HAS_PAGE_MAPCOUNT)
		return FSIM_MODE_BASE;
	return FSIM_MODE_RFC;
}

const char *kh_tree_label(void)
{
	static char label[160];
	const struct kh_tree_info *t = kh_tree();

	snprintf(label, sizeof(label), "%s, %u-bit, Linux %s%s%s%s",
		 fsim_mode_label(kh_tree_mode()), t->bits, t->release,
		 (t->features & KH_HAS_ARBITRARY) ? ", rfc part" :
		 (t->features & KH_HAS_MM_SLOTS) ? ", prep part" : "",
		 (t->features & KH_HAS_DUP_REFUSAL) ? ", fixes part" : "",
		 (t->features & KH_HAS_DETECT) ? ", detect part" : "");
	return label;
}

/* prep's __folio_add_anon_rmap() without per-page mapcounts: would the
 * add leave entire_mapcount > 1 with a page of its range AnonExclusive? */
static bool entire_warns(const struct kh_call_desc *d)
{
	const unsigned long entry = 1ul << (d->level == FSIM_LEVEL_PUD ?
					    kh_tree()->pud_order : kh_tree()->pmd_order);
	struct kh_folio_state st;
	unsigned long i;
	long entire;

	kh_folio_state(d->kf, &st);
	entire = st.entire_mapcount + (d->level == FSIM_LEVEL_PTE ? 0 : (long)(d->nr / entry));
	if (st.entire_mapcount < 0 || entire <= 1)
		return false;
	for (i = d->page; i < d->page + d->nr; i++)
		if (fsim_folio_anon_exclusive(d->f, i))
			return true;
	return false;
}

/*
 * Calls the model accepts that this tree's code cannot make: no kernel
 * function takes them, or only the series' arbitrary mappings (13/13) can
 * (the model's rfc mode stands for the series, and for the prep part with
 * CONFIG_NO_PAGE_MAPCOUNT too, which cannot).
 */
const char *kh_tree_cannot(const struct kh_call_desc *d)
{
	const struct kh_tree_info *t = kh_tree();
	const unsigned int order = fsim_folio_order(d->f);
	const bool anon = fsim_folio_kind(d->f) == FSIM_KIND_ANON;
	const bool rmap_call = d->op == FSIM_OP_ADD || d->op == FSIM_OP_REMOVE ||
			       d->op == FSIM_OP_DUP;

	if (fsim_folio_test_hugetlb(d->f))
		return NULL;
	if (rmap_call && d->level == FSIM_LEVEL_PUD) {
		if (!(t->features & KH_HAS_PUD_RMAP))
			return "a PUD mapping: PUD rmap came with prep/0009";
		if (d->op == FSIM_OP_DUP)
			return "a PUD dup: no folio_{try_dup_anon,dup_file}_rmap_pud()";
		if (anon && d->op == FSIM_OP_ADD)
			return "an anon PUD mapping: no folio_add_anon_rmap_pud()";
	}
	if (d->op == FSIM_OP_DUP && d->level == FSIM_LEVEL_PMD && !anon &&
	    !(t->features & KH_HAS_MM_SLOTS))
		return "a file PMD dup: 6.12's folio_dup_file_rmap_pmd() has no caller (fork "
		       "lets file PMDs fault in again) and counts HPAGE_PMD_NR PTE mappings "
		       "(prep/0008 fixes it)";
	if (t->bits == 32 && order == 1 && (t->features & KH_HAS_MM_SLOTS) &&
	    !(t->features & (KH_HAS_ARBITRARY | KH_HAS_PAGE_MAPCOUNT)) &&
	    (d->op == FSIM_OP_PIN || d->op == FSIM_OP_UNPIN || d->op == FSIM_OP_DUP))
		return "a pin or dup of an order-1 folio on 32-bit: the prep part counts its "
		       "pins in the refcount (prep/0004), the series in _pincount (rfc/0010), "
		       "and the model's rfc mode is the series";
	if (t->features & KH_HAS_ARBITRARY)
		return NULL;
	if (d->op == FSIM_OP_NEW_ANON && order > t->pmd_order)
		return "new-anon above the PMD order: one entire mapping before 13/13";
	if (!rmap_call)
		return NULL;
	if (d->level == FSIM_LEVEL_PMD && order != t->pmd_order)
		return "a PMD mapping of a folio that is not PMD-sized needs 13/13";
	if (d->level == FSIM_LEVEL_PUD && order != t->pud_order)
		return "a PUD mapping of a folio that is not PUD-sized needs 13/13";
	if (d->op == FSIM_OP_ADD && !d->exclusive && order > 0 && anon &&
	    !(t->features & KH_HAS_PAGE_MAPCOUNT) && entire_warns(d))
		return "a second entire mapping of a large folio whose page is still "
		       "AnonExclusive: the prep part's __folio_add_anon_rmap() warns "
		       "(entire_mapcount > 1), the series dropped the check";
	return NULL;
}
