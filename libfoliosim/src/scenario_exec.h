/* SPDX-License-Identifier: MIT */
/*
 * The scenario executor's internals, shared by its files:
 *   scenario_syms.c    names of mms, folios and processes; argument helpers
 *   scenario_run.c     executing statements (rmap calls, process operations)
 *   scenario_expect.c  expectations
 *   scenario_trace.c   the trace of `foliosim run` and statement text
 *   scenario_diff.c    lockstep runs: `foliosim diff` and `foliosim report`
 */
#ifndef FOLIOSIM_SCENARIO_EXEC_H
#define FOLIOSIM_SCENARIO_EXEC_H

#include <stdio.h>

#include "foliosim/process.h"
#include "scenario_internal.h"

enum sym_kind { SYM_MM, SYM_FOLIO, SYM_PROCESS };

struct sym {
	const char *name;	/* owned by run.names */
	enum sym_kind kind;
	void *obj;		/* struct fsim_mm *, fsim_folio * or fsim_process * */
	bool dead;		/* freed / dropped / exited */
};

struct run {
	const struct fsim_script *script;
	const struct scenario *sc;
	const struct fsim_run_options *opts;
	struct fsim_ctx *ctx;
	struct name_table names;	/* the symbols' names, by number */
	struct sym *syms;		/* by the number of their name */
	size_t nsyms;
	struct fsim_result *res;
	const struct stmt *st;
	bool skip_expects;	/* foliosim diff: expectations are per mode */
	/* fsim_script_run_progress(): called every FSIM_PROGRESS_CALLS calls */
	fsim_progress_fn progress;
	void *progress_arg;
	unsigned long long calls;	/* into the model, repeats counted */
	/* Counter values at the start, for thp/vmstat deltas. */
	int64_t thp0[32][FSIM_THP_NR_COUNTERS];
	uint64_t split0;
};

struct region_names {
	const char *name[64];
	size_t n;
};

/* How often (calls into the model) the progress callback is called. */
#define FSIM_PROGRESS_CALLS 65536

/* Counts one call into the model; false (the run failed) if the progress
 * callback asked to stop (scenario_run.c). */
bool run_tick(struct run *r);

/* scenario_syms.c */
bool fail(struct run *r, const char *fmt, ...);
struct sym *lookup(struct run *r, const char *name);
bool declare(struct run *r, const char *name, enum sym_kind kind, void *obj);
struct fsim_mm *get_mm(struct run *r, const char *name);
struct fsim_folio *get_folio(struct run *r, const char *name);
struct fsim_process *get_process(struct run *r, const char *name);
const char *mm_name(struct run *r, unsigned int id, char *buf, size_t len);
bool region_bytes(struct run *r, struct fsim_process *p, const char *region,
		  uint64_t *bytes);
const char *yn(bool b);
/* The names of @p's regions (at most 64). */
void regions_of(struct run *r, struct fsim_process *p, struct region_names *rn);

/* scenario_expect.c */
bool run_expect(struct run *r, const struct stmt *st);
bool folio_value(struct run *r, struct fsim_folio *f, const char *key,
		 unsigned long page, char *buf, size_t len);
bool region_value(struct run *r, struct fsim_process *p, const char *region,
		  const char *key, char *buf, size_t len);
void slot_value(struct run *r, struct fsim_folio *f, int idx, char *buf,
		size_t len);
int64_t anon_pages_kb(struct run *r);

/* scenario_trace.c */
void stmt_format(const struct stmt *st, char *buf, size_t len);
void trace_statement(struct run *r, const struct stmt *st);
void trace_folio(struct run *r, const char *name, struct fsim_folio *f);
void trace_stats(struct run *r);
void trace_processes(struct run *r);

/* scenario_run.c */
bool run_statement(struct run *r, const struct stmt *st);
bool run_begin(struct run *r, const struct fsim_script *script, size_t i,
	       const struct fsim_run_options *opts, struct fsim_result *res);
void run_end(struct run *r);

#endif /* FOLIOSIM_SCENARIO_EXEC_H */
