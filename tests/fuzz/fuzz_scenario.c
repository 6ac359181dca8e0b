// SPDX-License-Identifier: MIT
/*
 * fuzz_scenario: the scenario parser and checker on arbitrary text.
 *
 * fsim_script_parse() of the input, then for every scenario that passes
 * the work cap: fsim_script_run() in both modes with a trace to /dev/null,
 * and fsim_script_diff() (both modes in lockstep).  It must never crash,
 * hang or leak; failing scenarios are fine (that is what bad input does).
 * A statement the parser kept must parse again when it runs (a script
 * keeps statements as text): a replay that fails is a crash here.
 *
 * The work cap.  The language can ask for unbounded work on purpose:
 * `repeat 8388607 add ...`, a folio of order 30 (2^30 per-page counters in
 * legacy), `mmap size=1G` (2^18 folios at order 0).  None of that is a
 * bug, but a fuzzer would report it as a timeout or an out-of-memory, so
 * the target estimates each scenario's cost from its parsed statements
 * and runs only those below the bounds (parsing always runs):
 *   - no `repeat` count above FZ_MAX_REPEAT (10000),
 *   - pages declared (2^order of each folio, plus size >> 10 of each
 *     mmap: at least the page count for any page_shift >= 10) at most
 *     FZ_MAX_PAGES (2^19, a PUD-sized folio and change),
 *   - (statements + sum of repeats) * (pages + 1) * (processes + 1) at
 *     most FZ_MAX_WORK: the checker walks every page of a legacy folio
 *     after every statement, and the trace prints every process's smaps
 *     after every statement (a fork copies the regions: 513 forks of a
 *     2 MiB region took 10 s per run before processes were counted).
 * FOLIOSIM_FUZZ_VERBOSE=1 prints each scenario's decision.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/scenario.h"
#include "fuzz_common.h"

#define FZ_MAX_INPUT (64 * 1024)
#define FZ_MAX_REPEAT 10000ul
#define FZ_MAX_PAGES (1ull << 19)
#define FZ_MAX_WORK 20000000ull

static struct fz_counters counters;
static FILE *devnull;

static void print_counters(void)
{
	fz_stats_print("fuzz_scenario", &counters);
}

/* Whether running scenario @i stays within the work cap, by the library's
 * own estimate (fsim_script_cost(), which kunit-gen uses too). */
static bool affordable(const struct fsim_script *s, size_t i)
{
	struct fsim_cost c;

	if (fsim_script_cost(s, i, 0, &c))
		return false;
	return c.max_repeat <= FZ_MAX_REPEAT && c.pages <= FZ_MAX_PAGES &&
	       c.processes <= FZ_MAX_PAGES && c.check_work <= FZ_MAX_WORK;
}

/*
 * A statement the parser kept must parse again when it runs: fsim_script_run()
 * reports it as "FILE:LINE: internal error: ..." (scenario_run.c).  Only that
 * place counts: names and statement text the fuzzer wrote are echoed in other
 * messages and may contain the words anywhere (corpus/fuzz_scenario/
 * fixed-crash-internal-error-in-a-name).
 */
static bool is_internal_error(const char *msg)
{
	const char *p = strchr(msg, ':');

	if (!p || !isdigit((unsigned char)p[1]))
		return false;
	for (p++; isdigit((unsigned char)*p); p++)
		;
	return !strncmp(p, ": internal error: ", strlen(": internal error: "));
}

static void run_scenario(const struct fsim_script *s, size_t i)
{
	static const enum fsim_mode modes[] = { FSIM_MODE_LEGACY, FSIM_MODE_RFC };
	struct fsim_run_options opts;
	struct fsim_result res;
	size_t m;

	for (m = 0; m < 2; m++) {
		memset(&opts, 0, sizeof(opts));
		opts.mode = modes[m];
		opts.trace = devnull;
		fsim_script_run(s, i, &opts, &res);
		counters.ops += res.statements;
		if (is_internal_error(res.message))
			fz_die("fuzz_scenario", res.message);
		if (getenv("FOLIOSIM_FUZZ_VERBOSE"))
			fprintf(stderr, "  %s %s: %s %s\n", fsim_mode_name(modes[m]),
				fsim_script_name(s, i),
				res.outcome == FSIM_PASS ? "pass" :
				res.outcome == FSIM_FAIL ? "FAIL" : "skip", res.message);
	}
	/* The lockstep runner has its own statement loop: cover it too. */
	fsim_script_diff(s, i, devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsim_script *s = NULL;
	size_t i;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			fz_die("fuzz_scenario", "cannot open /dev/null");
		if (getenv("FOLIOSIM_FUZZ_STATS"))
			atexit(print_counters);
	}
	if (size > FZ_MAX_INPUT)
		return 0;
	counters.execs++;
	if (fsim_script_parse("fuzz.scn", (const char *)data, size, &s) || !s)
		return 0;
	for (i = 0; i < fsim_script_count(s); i++) {
		bool run = affordable(s, i);
		struct fsim_stmt_op op;
		size_t k;

		/* Every kept statement parses again (fsim_script_op() does). */
		for (k = 0; k < fsim_script_statements(s, i); k++)
			if (fsim_script_op(s, i, k, &op) == -EPROTO)
				fz_die("fuzz_scenario", "a kept statement no longer parses");

		if (getenv("FOLIOSIM_FUZZ_VERBOSE"))
			fprintf(stderr, "scenario %s: %s\n", fsim_script_name(s, i),
				run ? "run" : "skipped (work cap)");
		if (run)
			run_scenario(s, i);
		else
			counters.refused++;
	}
	fsim_script_free(s);
	return 0;
}
