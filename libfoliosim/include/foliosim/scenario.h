/* SPDX-License-Identifier: MIT */
/*
 * The scenario language (docs/scenario-format.md; the normative core is
 * shared/specs/scenario-format.md): loading (whole, or one scenario at a
 * time with a reader), the statements and their resolved ops and names,
 * running them in the model, comparing the modes (compare, diff, report)
 * and the expect keys.  `foliosim check`, `run`, `diff` and `report`, the
 * guest runner and kunit-gen are layers on top.
 *
 * Parsing never fails on bad content: a syntax error is recorded in the
 * scenario it belongs to ("FILE:LINE: message") and fails that scenario
 * only.  Running a scenario stops at its first error or failed expectation.
 */
#ifndef FOLIOSIM_SCENARIO_H
#define FOLIOSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "foliosim/foliosim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fsim_script;	/* the scenarios of one file */

/** Reads and parses @path ("-": standard input, named <stdin> in
 *  messages).  -errno if the file cannot be read (then @err holds "PATH:
 *  strerror"); 0 otherwise, whatever the content. */
FSIM_API int fsim_script_load(const char *path, struct fsim_script **out,
			      char *err, size_t errlen);
/** Parses @len bytes of @text, reported as file @name. */
FSIM_API int fsim_script_parse(const char *name, const char *text, size_t len,
			       struct fsim_script **out);
FSIM_API void fsim_script_free(struct fsim_script *script);

/** A scenario file read one scenario at a time: memory follows the largest
 *  scenario, not the file (fsim_script_load() holds the whole file).
 *  Since 0.3.0. */
struct fsim_script_reader;

/** Opens @path ("-": standard input) for fsim_script_reader_next().
 *  -errno if it cannot be opened (then @err holds "PATH: reason"). */
FSIM_API int fsim_script_reader_open(const char *path, struct fsim_script_reader **out,
				     char *err, size_t errlen);
/** The next scenario of the file, as a script of one scenario (its
 *  lines numbered as in the file; free it with fsim_script_free()), or
 *  NULL in *@out at the end of the file.  Lines before the first
 *  `scenario` statement belong to it, as fsim_script_parse() reads them.
 *  0, or -errno (EISDIR for a directory, EIO, ENOMEM; @err says which). */
FSIM_API int fsim_script_reader_next(struct fsim_script_reader *reader,
				     struct fsim_script **out, char *err, size_t errlen);
/** The number of scenarios fsim_script_reader_next() has returned. */
FSIM_API size_t fsim_script_reader_count(const struct fsim_script_reader *reader);
FSIM_API void fsim_script_reader_close(struct fsim_script_reader *reader);

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
/** Statement @k of scenario @i; 0, -EINVAL if out of range, -ENOMEM.
 *  A script keeps statements as text: the first call for a scenario parses
 *  all its statements again and keeps them (about 800 bytes each), so the
 *  view's pointers live until fsim_script_free().  Threads may call it at
 *  once.  The executors (fsim_script_run(), check) do not use it. */
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
	FSIM_EXPECT_ROLLUP,	/* expect P key=... (/proc/P/smaps_rollup) */
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
/** "folio", "stats", "thp", "vmstat", "meminfo", "region", "rollup". */
FSIM_API const char *fsim_expect_target_name(enum fsim_expect_target target);

/* ------------------------------------------------------------------ */
/* The resolved form of a statement: what it does, its keys typed and  */
/* defaults filled in, its names numbered.  The parser fills it from   */
/* one key table (scenario_parse.c), so executors (the model's runner, */
/* kunit-gen, the guest runner, the cost estimate) decode no text.     */
/* ------------------------------------------------------------------ */

enum fsim_op {
	FSIM_OP_MODE, FSIM_OP_ARCH,
	/* rmap level */
	FSIM_OP_MM, FSIM_OP_MMDROP, FSIM_OP_FOLIO, FSIM_OP_NEW_ANON,
	FSIM_OP_ADD, FSIM_OP_REMOVE, FSIM_OP_DUP, FSIM_OP_PIN, FSIM_OP_UNPIN,
	FSIM_OP_FREE,
	FSIM_OP_EXPECT,
	/* process level: "process P", then "P verb ..." */
	FSIM_OP_PROCESS, FSIM_OP_MMAP, FSIM_OP_TOUCH, FSIM_OP_READ,
	FSIM_OP_FORK, FSIM_OP_MUNMAP, FSIM_OP_DONTNEED, FSIM_OP_EXIT,
	FSIM_OP_MPROTECT, FSIM_OP_MREMAP, FSIM_OP_COLLAPSE, FSIM_OP_PAGEOUT,
	/* the detect part (beyond the RFC): "part detect" (name "detect"),
	 * "detect F", "deferred-split-scan" (no name) */
	FSIM_OP_PART, FSIM_OP_DETECT, FSIM_OP_SPLIT_SCAN,
};

/** touch/read without len=: from off to the end of the region. */
#define FSIM_LEN_TO_END UINT64_MAX

struct fsim_stmt_op {
	enum fsim_op op;
	unsigned int line;
	unsigned long repeat;		/* 1 unless "repeat N" */
	int fails;			/* fails=E: -E; 0: the call must succeed */
	/* Names and their numbers: every name a scenario declares (mm,
	 * folio, process, fork's child) is numbered from 0 in the order of
	 * its first declaration; -1 for a name not declared before (the
	 * executor reports it) or no name. */
	const char *name;		/* the mm, folio or process acted on */
	int name_index;
	const char *mm;			/* mm= */
	int mm_index;
	const char *src;		/* dup src= */
	int src_index;
	const char *child;		/* fork: the child process */
	int child_index;
	const char *region;		/* process operations but fork/exit */
	/* rmap statements */
	uint64_t id;			/* mm id=: 0 = the next free id */
	enum fsim_level level;		/* add/remove/dup level= */
	uint64_t page, nr;		/* add/remove/dup page= nr= */
	bool exclusive;			/* new-anon: default yes; add: default no */
	uint64_t n;			/* pin/unpin n=: default 1 */
	/* folio F order=N KIND [shmem|hugetlb]; P mmap R size=S [anon|shmem]
	 * [hugetlb] [order=K] */
	enum fsim_kind kind;		/* folio: anon, file, shmem; mmap: anon or
					 * shmem, with file= file or shmem (tmpfs) */
	bool hugetlb;
	uint64_t order;			/* folio order=; mmap order= (hugetlb: default
					 * the PMD order); expect thp order= (default
					 * the PMD order) */
	uint64_t size;			/* mmap size= in bytes */
	uint64_t off, len;		/* touch/read (len default FSIM_LEN_TO_END),
					 * munmap/dontneed */
	/* expect statements: the keys are read with the key table below */
	enum fsim_expect_target target;	/* what it looks at (op == FSIM_OP_EXPECT) */
	int expect_mode;		/* expect[MODE]: that mode, else -1 */
	/* P mmap R size=S file=F [shmem] [order=K]: MAP_PRIVATE of file F
	 * (kind FSIM_KIND_FILE, or FSIM_KIND_SHMEM for a file on tmpfs) */
	const char *file;		/* NULL: anonymous memory */
	/* P mprotect R off=O len=L prot=none|read|rw */
	uint64_t prot;			/* FSIM_PROT_* bits (process.h) */
	/* P mremap R to=D [keep_pmd=yes|no] */
	const char *to;			/* the region the move creates */
	bool keep_pmd;			/* default yes: PMD mappings move whole */
};

/** The resolved form of statement @k of scenario @i.  0, -EINVAL if out of
 *  range or the scenario failed to parse at or before that statement, or
 *  -ENOMEM (the statement is parsed again from its text each call).  Its
 *  names point into the script and live until fsim_script_free(). */
FSIM_API int fsim_script_op(const struct fsim_script *script, size_t i, size_t k,
			    struct fsim_stmt_op *out);
/** The number of names scenario @i declares, and name @index (NULL out of
 *  range): the names of fsim_stmt_op's *_index fields. */
FSIM_API size_t fsim_script_name_count(const struct fsim_script *script, size_t i);
FSIM_API const char *fsim_script_name_at(const struct fsim_script *script, size_t i,
					 size_t index);
/** The number (>= 0) of @name in scenario @i (e.g. an mm named in a slot
 *  value "M:count"), -ENOENT if the scenario declares no such name,
 *  -EINVAL if there is no scenario @i. */
FSIM_API int fsim_script_name_find(const struct fsim_script *script, size_t i,
				   const char *name);

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
 *  in @modes (bit 1 << mode; 0: every mode).  0, -EINVAL or -ENOMEM. */
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

/** The progress of a long run: @line is the statement being run, @calls
 *  the calls into the model so far (each repeat of a statement counts).
 *  Nonzero stops the run, which then fails. */
typedef int (*fsim_progress_fn)(void *arg, unsigned int line, unsigned long long calls);

/** fsim_script_run() that calls @progress (if not NULL) every 65,536
 *  calls into the model, e.g. to show that a `repeat` of millions is
 *  moving, or to stop it.  Since 0.3.0. */
FSIM_API void fsim_script_run_progress(const struct fsim_script *script, size_t i,
				       const struct fsim_run_options *opts,
				       fsim_progress_fn progress, void *arg,
				       struct fsim_result *result);

/* ------------------------------------------------------------------ */
/* Lockstep comparison: a scenario run in several modes at once, every */
/* user-visible value compared after every statement.                  */
/* ------------------------------------------------------------------ */

/** One value (or a range of pages with the same values) that differs
 *  between the compared modes after a statement. */
struct fsim_diff_value {
	unsigned int line;		/* of the statement */
	const char *statement;		/* the statement as text */
	const char *group;		/* "folio", "region", "stats", "meminfo", "thp" */
	const char *subject;		/* the folio or process; NULL if system-wide */
	const char *region;		/* the region (group "region"), else NULL */
	const char *key;		/* "pss_kb", "kpagecount", "nr_anon_mapped", ... */
	unsigned int thp_order;		/* group "thp": the mTHP order */
	bool per_page;			/* a page-level key: pages first..last */
	uint64_t first_page, last_page;	/* of the folio, or of the region */
	bool boolean;			/* values are 0/1 for no/yes */
	bool order;			/* values are folio orders, -1 for none */
	size_t nmodes;
	const enum fsim_mode *modes;	/* as passed to fsim_script_compare() */
	const int64_t *values;		/* per mode */
	int reader;			/* the summary's /proc reader, or -1 */
	int consumer;			/* group "consumer": fsim_consumer_at()'s
					 * index (subject NULL: system-wide) */
};

/** Called for every differing value; nonzero stops the comparison. */
typedef int (*fsim_diff_fn)(void *arg, const struct fsim_diff_value *value);

/** At most this many values per mode after one statement (every page of
 *  every region of every process counts three times): beyond it the
 *  comparison fails with -E2BIG and a message rather than cut its answer. */
#define FSIM_DIFF_MAX_VALUES (16u << 20)

/** Runs scenario @i in the @nmodes (2..FSIM_NR_MODES) @modes in lockstep,
 *  expectations skipped, and calls @fn for each value that differs after
 *  a statement, consecutive pages with the same values merged into one
 *  range.  0 when it ran to the end; -EOPNOTSUPP when the scenario does
 *  not run in one of the modes (a skip, why: @err); -ECANCELED when a
 *  statement failed; -E2BIG, -ENOMEM, or -EINVAL (@err says which).
 *  (Before 0.4.0: 1 for the skip, -1 for a failed statement.)  No static
 *  state: threads may compare different scripts (or the same) at once. */
FSIM_API int fsim_script_compare(const struct fsim_script *script, size_t i,
				 const enum fsim_mode *modes, size_t nmodes,
				 fsim_diff_fn fn, void *arg, char *err, size_t errlen);
/** "P R kpagecount pages 8-15", "F exclusive page 3", "stats nr_anon_mapped",
 *  "thp order=4 nr_anon_partially_mapped": what a row is about. */
FSIM_API void fsim_diff_value_label(const struct fsim_diff_value *value,
				    char *buf, size_t len);
/** A value as the scenario language writes it: "yes", "none", "12". */
FSIM_API void fsim_diff_value_text(const struct fsim_diff_value *value, size_t mode,
				   char *buf, size_t len);

/** Runs scenario @i in both modes in lockstep (expectations skipped) and
 *  prints, after each statement, the user-visible values that differ
 *  between legacy and rfc.  0 (a scenario that does not run in a mode is
 *  a note, not an error), or fsim_script_compare()'s negative errno
 *  (-ECANCELED: a statement failed). */
FSIM_API int fsim_script_diff(const struct fsim_script *script, size_t i, FILE *out);
/** The same between any two modes (e.g. base to rfc: what the 13 patches
 *  change on their own base tree). */
FSIM_API int fsim_script_diff_modes(const struct fsim_script *script, size_t i,
				    enum fsim_mode from, enum fsim_mode to,
				    FILE *out);

/** The /proc readers the report sums up, and how often the RFC shows a
 *  lower [0] or higher [1] value than 6.12. */
#define FSIM_READERS 9
#define FSIM_MAX_CONSUMERS 32	/* >= fsim_consumer_count() */
struct fsim_report_totals {
	unsigned long changes[FSIM_READERS][2];		/* differing values */
	unsigned long scenarios[FSIM_READERS][2];	/* scenarios with one */
	/* Of the values where 6.12 and the RFC differ: base already reads the
	 * RFC's value, base still reads 6.12's, base reads a third value. */
	unsigned long from_base[FSIM_READERS], from_series[FSIM_READERS];
	unsigned long from_both[FSIM_READERS];
	unsigned long scenarios_run, scenarios_differing;
	/* The size of the error: per reader the largest difference RFC - 6.12
	 * of one value, in the reader's unit (kB, a count), the same relative
	 * to 6.12's value (percent; 0 if 6.12 reads 0), and where: "FILE:LINE
	 * (scenario NAME): LABEL 6.12-VALUE -> RFC-VALUE". */
	int64_t worst_abs[FSIM_READERS];
	double worst_rel[FSIM_READERS];
	char worst_where[FSIM_READERS][256];
	/* Per consumer (fsim_consumer_at()): the largest absolute error of
	 * its figure, RFC - 6.12, and the largest relative one (of values
	 * where 6.12 reads more than 0), each with where it shows. */
	struct fsim_consumer_error {
		int64_t abs;
		int64_t abs_legacy, abs_rfc;	/* the two readings */
		double rel;			/* percent */
		int64_t rel_legacy, rel_rfc;
		char abs_where[256], rel_where[256];
	} consumers[FSIM_MAX_CONSUMERS];
	/* The scenario being added (fsim_report_scenario_begin()). */
	bool counted[FSIM_READERS][2];
	unsigned long values_in_scenario;
};
/** The totals' side of a report, for programs that print their own (the
 *  CLI's JSON): begin a scenario, add each differing value of a legacy,
 *  base, rfc comparison (fsim_script_compare()), end it with the compare
 *  status (-EOPNOTSUPP: not counted as run).  fsim_report_add() returns where the difference comes from:
 *  "base tree", "series", "both", "base only" (6.12 = RFC) or "". */
FSIM_API void fsim_report_scenario_begin(struct fsim_report_totals *totals);
FSIM_API const char *fsim_report_add(struct fsim_report_totals *totals,
				     const struct fsim_diff_value *value,
				     const struct fsim_script *script, size_t i);
FSIM_API void fsim_report_scenario_end(struct fsim_report_totals *totals, int status);

/** A Markdown table of the values that differ between 6.12, the base tree
 *  and the RFC after each step of scenario @i, with where each difference
 *  comes from (base tree, series, both); adds to @totals.  0, or
 *  fsim_script_compare()'s negative errno other than -EOPNOTSUPP. */
FSIM_API int fsim_script_report(const struct fsim_script *script, size_t i,
				FILE *out, struct fsim_report_totals *totals);
FSIM_API const char *fsim_report_reader_name(int reader);

#ifdef __cplusplus
}
#endif

#endif /* FOLIOSIM_SCENARIO_H */
