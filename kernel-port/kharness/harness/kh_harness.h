/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness, harness half: the pieces its programs share (kh-run, kh-fuzz,
 * kh-bench, kh-stress): the kernel's reports, the model in lockstep with
 * the kernel code, the comparison of the two.
 */
#ifndef KH_HARNESS_H
#define KH_HARNESS_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <foliosim/foliosim.h>

#include "kh_api.h"

/* ---- kh_report.c: WARN, BUG and print from the kernel code ---- */
struct kh_event_site {
	char file[96];
	int line;
	char printed[512];	/* what dump_page()/WARN() printed before it */
};
struct kh_events {
	unsigned long warnings, bugs;
	struct kh_event_site last;
};
const struct kh_events *kh_events(void);
void kh_events_reset(void);
void kh_report_quiet(bool quiet);
void kh_set_bug_jump(jmp_buf *jump);

/* ---- kh_tree.c: which model mode and part the tree is ---- */
enum fsim_mode kh_tree_mode(void);
/* "legacy (6.12)", ..., with the tree's parts */
const char *kh_tree_label(void);
/* One rmap call as the model takes it. */
struct kh_call_desc {
	int op;				/* enum fsim_op */
	const struct fsim_folio *f;
	struct kh_folio *kf;
	int level;			/* enum fsim_level */
	unsigned long page, nr;
	bool exclusive;
};
/* Why this tree's code cannot make a call the model accepts (no kernel
 * function takes it, or it needs 13/13's arbitrary mappings); NULL if it
 * can. */
const char *kh_tree_cannot(const struct kh_call_desc *d);

/* ---- kh_compare.c: the model's folio against the kernel's ---- */
/* Compares every counter the tree has after a call that touched @mf/@kf:
 * 0, or -1 with @why ("mapcount: model 3, kernel 2"). */
int kh_compare_folio(const struct fsim_folio *mf, struct kh_folio *kf,
		     char *why, size_t len);
/* The same, with the per-page values of pages [@first, @first + @nr) only. */
int kh_compare_folio_pages(const struct fsim_folio *mf, struct kh_folio *kf,
			   unsigned long first, unsigned long nr, char *why, size_t len);
/* The node statistics, THP counters and split queue, relative to the
 * baselines taken by kh_compare_baseline(). */
void kh_compare_baseline(const struct fsim_ctx *ctx);
void kh_compare_baseline_get(struct kh_stats *out);
int kh_compare_stats(const struct fsim_ctx *ctx, char *why, size_t len);

#endif /* KH_HARNESS_H */
