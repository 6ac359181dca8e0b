/* SPDX-License-Identifier: MIT */
/*
 * The scenario language (docs/scenario-format.md; the normative core is
 * shared/specs/scenario-format.md): parsing and running scenario files in
 * the model.  `foliosim check` and `foliosim run` are thin layers on top.
 *
 * Parsing never fails on bad content: a syntax error is recorded in the
 * scenario it belongs to ("FILE:LINE: message") and fails that scenario
 * only.  Running a scenario stops at its first error or failed expectation.
 */
#ifndef FOLIOSIM_SCENARIO_H
#define FOLIOSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "foliosim/foliosim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fsim_script;	/* the scenarios of one file */

/** Reads and parses @path.  -errno if the file cannot be read (then
 *  @err holds "PATH: strerror"); 0 otherwise, whatever the content. */
FSIM_API int fsim_script_load(const char *path, struct fsim_script **out,
			      char *err, size_t errlen);
/** Parses @len bytes of @text, reported as file @name. */
FSIM_API int fsim_script_parse(const char *name, const char *text, size_t len,
			       struct fsim_script **out);
FSIM_API void fsim_script_free(struct fsim_script *script);

/** Number of scenarios, and the name of scenario @i. */
FSIM_API size_t fsim_script_count(const struct fsim_script *script);
FSIM_API const char *fsim_script_name(const struct fsim_script *script, size_t i);
/** Whether scenario @i runs in @mode (its `mode` statement). */
FSIM_API bool fsim_script_runs_in(const struct fsim_script *script, size_t i,
				  enum fsim_mode mode);
/** Whether scenario @i has process statements (syscall level). */
FSIM_API bool fsim_script_has_processes(const struct fsim_script *script, size_t i);

/* ------------------------------------------------------------------ */
/* Read-only access to parsed statements, for other executors (the     */
/* KUnit table generator, the guest runner that replays process        */
/* statements with real system calls).                                 */
/* ------------------------------------------------------------------ */

/** key=value, key[i]=value (lo = i, hi = i + 1) or key[a:b]=value. */
struct fsim_stmt_arg {
	char *key;
	char *value;
	bool indexed;
	unsigned long lo, hi;
};

struct fsim_stmt_view {
	unsigned int line;
	/* "mode", "arch", "mm", "mmdrop", "folio", "new-anon", "add", "remove",
	 * "dup", "pin", "unpin", "free", "expect", "process", or for a process
	 * operation its verb: "mmap", "touch", "read", "fork", "munmap",
	 * "dontneed", "exit" (then words[0] is the process). */
	const char *keyword;
	int expect_mode;		/* expect[legacy|rfc]: that mode, else -1 */
	unsigned long repeat;		/* 1 unless "repeat N" */
	size_t nwords;			/* names after the keyword (process ops: */
	char *const *words;		/* P, verb, then the operands) */
	size_t nargs;
	const struct fsim_stmt_arg *args;
};

FSIM_API const char *fsim_script_file(const struct fsim_script *script);
/** The line of scenario @i's `scenario NAME` statement (0 if out of range). */
FSIM_API unsigned int fsim_script_line(const struct fsim_script *script, size_t i);
/** The first parse error of scenario @i ("FILE:LINE: message"), or NULL. */
FSIM_API const char *fsim_script_error(const struct fsim_script *script, size_t i);
FSIM_API const struct fsim_arch *fsim_script_arch(const struct fsim_script *script,
						  size_t i);
FSIM_API size_t fsim_script_statements(const struct fsim_script *script, size_t i);
/** Statement @k of scenario @i; 0 or -EINVAL if out of range. */
FSIM_API int fsim_script_statement(const struct fsim_script *script, size_t i,
				   size_t k, struct fsim_stmt_view *out);
/** The value of @key in @v (non-indexed), or NULL. */
FSIM_API const char *fsim_stmt_value(const struct fsim_stmt_view *v, const char *key);
/** Parses a size value (N, NK, NM, NG) or a plain number. */
FSIM_API bool fsim_parse_size(const char *s, unsigned long long *out);

/* ------------------------------------------------------------------ */
/* The keys of `expect` statements: one table for every executor (the   */
/* parser, the model's runner, kunit-gen, the guest runner).            */
/* ------------------------------------------------------------------ */

/** What an `expect` statement looks at. */
enum fsim_expect_target {
	FSIM_EXPECT_FOLIO,	/* expect F key=... */
	FSIM_EXPECT_STATS,	/* expect stats key=... (node statistics, pages) */
	FSIM_EXPECT_THP,	/* expect thp [order=K] key=... (deltas) */
	FSIM_EXPECT_VMSTAT,	/* expect vmstat key=... (deltas) */
	FSIM_EXPECT_MEMINFO,	/* expect meminfo key=... (deltas, kB) */
	FSIM_EXPECT_REGION,	/* expect P R key=... (what /proc shows of a region) */
	FSIM_EXPECT_NR_TARGETS
};

/** The type of a key's value. */
enum fsim_value_type {
	FSIM_VALUE_UINT,	/* decimal */
	FSIM_VALUE_SINT,	/* decimal, may have a '-' */
	FSIM_VALUE_BOOL,	/* yes / no */
	FSIM_VALUE_SLOT,	/* M:count or none */
};

#define FSIM_KEY_INDEXED	0x1	/* folio: key[i], key[a:b]; region: key@OFF */
#define FSIM_KEY_SELECTOR	0x2	/* chooses what is compared (thp order=K) */
#define FSIM_KEY_MM_SLOTS	0x4	/* only where the kernel has MM-id slots */
#define FSIM_KEY_PAGE_MAPCOUNT	0x8	/* only with CONFIG_PAGE_MAPCOUNT counters */

struct fsim_expect_key {
	const char *name;
	enum fsim_expect_target target;
	enum fsim_value_type type;
	unsigned int flags;		/* FSIM_KEY_* */
	const char *meaning;		/* one line, for --help and docs */
};

/** Number of keys, and key @i (NULL past the last). */
FSIM_API size_t fsim_expect_key_count(void);
FSIM_API const struct fsim_expect_key *fsim_expect_key_at(size_t i);
/** The key @name of @target (for a region key, without its @OFF), or NULL. */
FSIM_API const struct fsim_expect_key *fsim_expect_key_find(enum fsim_expect_target target,
							    const char *name);
/** Whether the key exists in @mode (FSIM_KEY_MM_SLOTS, FSIM_KEY_PAGE_MAPCOUNT
 *  ask the mode's kernel). */
FSIM_API bool fsim_expect_key_in_mode(const struct fsim_expect_key *key,
				      enum fsim_mode mode);
/** "folio", "stats", "thp", "vmstat", "meminfo", "region". */
FSIM_API const char *fsim_expect_target_name(enum fsim_expect_target target);

/** What running a scenario costs, estimated from its statements: one
 *  estimate for every executor that bounds its work (the fuzz target's
 *  work cap, kunit-gen's per-scenario rmap work).  Counts saturate. */
struct fsim_cost {
	unsigned long long steps;	/* statements + the sum of their repeats */
	unsigned long long max_repeat;	/* the largest `repeat N` */
	unsigned long long pages;	/* 2^order per folio, size >> 10 per mmap
					 * (at least its pages for page_shift >= 10) */
	unsigned long long processes;	/* 1 + process and fork statements */
	unsigned long long check_work;	/* steps * (pages + 1) * processes: the
					 * checker and the trace walk every page and
					 * region after every statement */
	unsigned long long rmap_work;	/* per-page rmap updates: a PTE call its
					 * pages, a PMD/PUD entry 1, new-anon 2^order,
					 * mm/mmdrop 1024, an indexed expect its
					 * pages; times repeat */
};
/** The cost of scenario @i, counting the expect[MODE] lines of the modes
 *  in @modes (bit 1 << mode; 0: every mode).  0 or -EINVAL. */
FSIM_API int fsim_script_cost(const struct fsim_script *script, size_t i,
			      unsigned int modes, struct fsim_cost *out);

enum fsim_outcome {
	FSIM_PASS = 0,
	FSIM_FAIL = 1,
	FSIM_SKIP = 2,
};

struct fsim_result {
	enum fsim_outcome outcome;
	/* FAIL: "FILE:LINE: expected KEY=V, got W" or "FILE:LINE: message";
	 * SKIP: the reason. */
	char message[512];
	unsigned long statements;	/* statements executed (repeats count once) */
};

struct fsim_run_options {
	enum fsim_mode mode;
	FILE *trace;		/* non-NULL: a readable step-by-step trace */
	bool no_invariants;	/* skip fsim_check_ctx() after each statement */
};

/** Runs scenario @i of @script in the model. */
FSIM_API void fsim_script_run(const struct fsim_script *script, size_t i,
			      const struct fsim_run_options *opts,
			      struct fsim_result *result);

/** Runs scenario @i in both modes in lockstep (expectations skipped) and
 *  prints, after each statement, the user-visible values that differ
 *  between legacy and rfc.  0, or -1 if a statement failed. */
FSIM_API int fsim_script_diff(const struct fsim_script *script, size_t i, FILE *out);
/** The same between any two modes (e.g. base to rfc: what the 13 patches
 *  change on their own base tree). */
FSIM_API int fsim_script_diff_modes(const struct fsim_script *script, size_t i,
				    enum fsim_mode from, enum fsim_mode to,
				    FILE *out);

/** The /proc readers the report sums up, and how often the RFC shows a
 *  lower [0] or higher [1] value than 6.12. */
#define FSIM_READERS 9
struct fsim_report_totals {
	unsigned long changes[FSIM_READERS][2];		/* differing values */
	unsigned long scenarios[FSIM_READERS][2];	/* scenarios with one */
	/* Of the values where 6.12 and the RFC differ: base already reads the
	 * RFC's value, base still reads 6.12's, base reads a third value. */
	unsigned long from_base[FSIM_READERS], from_series[FSIM_READERS];
	unsigned long from_both[FSIM_READERS];
	unsigned long scenarios_run, scenarios_differing;
};
/** A Markdown table of the values that differ between 6.12, the base tree
 *  and the RFC after each step of scenario @i, with where each difference
 *  comes from (base tree, series, both); adds to @totals. */
FSIM_API int fsim_script_report(const struct fsim_script *script, size_t i,
				FILE *out, struct fsim_report_totals *totals);
FSIM_API const char *fsim_report_reader_name(int reader);

#ifdef __cplusplus
}
#endif

#endif /* FOLIOSIM_SCENARIO_H */
