/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kharness, harness half: a scenario run on the kernel code and in the
 * model in lockstep (kh_exec.c), its expectations (kh_expect.c), and the
 * probe of calls the model refuses (kh_probe.c).
 */
#ifndef KH_EXEC_H
#define KH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include <foliosim/foliosim.h>
#include <foliosim/scenario.h>

#include "kh_harness.h"

/* What the kernel code did with a call the model refuses. */
enum {
	KH_PROBE_SILENT = 0,	/* nothing: it changed its counters without a word */
	KH_PROBE_WARN,		/* WARN() (VM_WARN_ON_FOLIO(), ...) */
	KH_PROBE_BUG,		/* BUG() (VM_BUG_ON(), ...) */
	KH_PROBE_REFUSED,	/* returned an error, as the model does */
	KH_PROBE_CRASH,		/* the process died (a wild access) */
};
struct kh_probe_result {
	int outcome;
	int err;		/* KH_PROBE_REFUSED: the error */
	int signal;		/* KH_PROBE_CRASH: the signal */
	struct kh_event_site site;
};
int kh_probe(int (*call)(void *arg), void *arg, struct kh_probe_result *res);
const char *kh_probe_outcome_name(int outcome);

/* One declared name of a scenario, in both executors. */
struct kh_name {
	struct fsim_mm *mm;
	struct kh_mm *kmm;
	struct fsim_folio *f;
	struct kh_folio *kf;
};

/* Statements the model refuses, by what the kernel code did with them. */
struct kh_refusals {
	unsigned long warn, bug, refused, silent_declared, not_asked;
};

struct kh_scn {
	const struct fsim_script *script;
	size_t index;
	enum fsim_mode mode;
	struct fsim_ctx *ctx;
	struct kh_name *names;
	size_t nnames;
	/* the outcome */
	enum fsim_outcome outcome;
	char message[640];	/* FAIL: "FILE:LINE: ..."; SKIP: the reason */
	unsigned long statements, calls, expects_checked;
	struct kh_refusals refusals;
	/* The scenario declares no arch and runs with the tree's (i386):
	 * where its own expectation then fails, in the kernel code as in the
	 * model beside it, it was written for x86_64's limits and is skipped
	 * (expectation_failed marks such a failure). */
	bool arch_substituted, expectation_failed;
	struct fsim_arch arch;
};

/* Runs scenario @index of @script on the kernel code with the model beside
 * it; fills @scn's outcome.  Call it in a process of its own (kh-run forks
 * one per scenario): a BUG() leaves the kernel half unusable. */
void kh_scenario_run(const struct fsim_script *script, size_t index, struct kh_scn *scn);

/* kh_expect.c: checks an `expect` statement against the kernel state;
 * 0, or -1 with scn->message set. */
int kh_expect(struct kh_scn *scn, const struct fsim_stmt_op *op,
	      const struct fsim_stmt_view *view);
/* Every key of the library's table that an rmap scenario can use has a
 * reader here: NULL, or the first key that has none. */
const char *kh_expect_missing_key(void);

#endif /* KH_EXEC_H */
