/* SPDX-License-Identifier: MIT */
/* The foliosim command line's commands (one file each) and what they share. */
#ifndef FOLIOSIM_CLI_H
#define FOLIOSIM_CLI_H

#include <stdbool.h>

#include "foliosim/foliosim.h"
#include "foliosim/scenario.h"

enum output_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_TAP };

/* `repeat N` above this is refused unless --max-repeat raises it: a
 * mistyped count would otherwise run for hours. */
#define DEFAULT_MAX_REPEAT 10000000ull

struct options {
	enum fsim_mode mode;
	enum fsim_mode from, to;	/* diff */
	bool mode_set, from_set, to_set;
	bool no_invariants;
	bool progress, progress_set;	/* --no-progress: check and run */
	enum output_format format;
	unsigned long long max_repeat;
	int nfiles;
	char **files;
};

/* load.c: the one scenario file of `run` and `diff`; NULL after a message. */
struct fsim_script *load_single(const struct options *o, const char *cmd);
/* "FILE: no scenario in the file (...)" in @err; -1. */
int no_scenario_error(const char *file, char *err, size_t errlen);
/* A loaded file the commands accept: at least one scenario, no `repeat`
 * above o->max_repeat.  0, or -1 with the reason in @err. */
int check_loaded(const struct options *o, const struct fsim_script *s, char *err,
		 size_t errlen);

int cmd_check(struct options *o);	/* cmd_check.c */
int cmd_run(struct options *o);		/* cmd_check.c */
int cmd_diff(struct options *o);	/* cmd_diff.c */
int cmd_report(struct options *o);	/* cmd_report.c */
int cmd_snapshot(int argc, char **argv);	/* cmd_snapshot.c */

#endif /* FOLIOSIM_CLI_H */
