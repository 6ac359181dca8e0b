/* SPDX-License-Identifier: MIT */
/* The foliosim command line's commands (one file each) and what they share. */
#ifndef FOLIOSIM_CLI_H
#define FOLIOSIM_CLI_H

#include <stdbool.h>

#include "foliosim/foliosim.h"
#include "foliosim/scenario.h"

enum output_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_TAP };

struct options {
	enum fsim_mode mode;
	enum fsim_mode from, to;	/* diff */
	bool no_invariants;
	enum output_format format;
	int nfiles;
	char **files;
};

/* The one scenario file of `run` and `diff`; NULL after a message. */
struct fsim_script *load_single(const struct options *o, const char *cmd);

int cmd_check(struct options *o);	/* cmd_check.c */
int cmd_run(struct options *o);		/* cmd_check.c */
int cmd_diff(struct options *o);	/* cmd_diff.c */
int cmd_report(struct options *o);	/* cmd_report.c */
int cmd_snapshot(int argc, char **argv);	/* cmd_snapshot.c */

#endif /* FOLIOSIM_CLI_H */
