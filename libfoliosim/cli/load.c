// SPDX-License-Identifier: MIT
/* Loading scenario files for the commands (cli.h): what check, run, diff
 * and report accept of a file.  A leaf of the command line: the commands
 * call it, it calls only the library. */
#include <stdio.h>
#include <string.h>

#include "foliosim/scenario.h"
#include "cli.h"

int no_scenario_error(const char *file, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: no scenario in the file (it is empty or holds "
		 "only comments; a file starts with 'scenario NAME')", file);
	return -1;
}

int check_loaded(const struct options *o, const struct fsim_script *s, char *err,
		 size_t errlen)
{
	size_t i, k;

	if (!fsim_script_count(s))
		return no_scenario_error(fsim_script_file(s), err, errlen);
	for (i = 0; i < fsim_script_count(s); i++)
		for (k = 0; k < fsim_script_statements(s, i); k++) {
			struct fsim_stmt_op op;
			int ret = fsim_script_op(s, i, k, &op);

			if (ret) {
				snprintf(err, errlen, "%s: scenario %s: %s", fsim_script_file(s),
					 fsim_script_name(s, i), strerror(-ret));
				return -1;
			}
			if (op.repeat <= o->max_repeat)
				continue;
			snprintf(err, errlen, "%s:%u: repeat %lu is above the cap of %llu "
				 "(foliosim --max-repeat N allows more)", fsim_script_file(s),
				 op.line, op.repeat, o->max_repeat);
			return -1;
		}
	return 0;
}

/* The one scenario file of `run` and `diff`; NULL after a message. */
struct fsim_script *load_single(const struct options *o, const char *cmd)
{
	struct fsim_script *s;
	char err[512];

	if (o->nfiles != 1) {
		fprintf(stderr, "foliosim %s: give exactly one scenario file\n", cmd);
		return NULL;
	}
	if (fsim_script_load(o->files[0], &s, err, sizeof(err))) {
		fprintf(stderr, "foliosim: %s\n", err);
		return NULL;
	}
	if (check_loaded(o, s, err, sizeof(err))) {
		fprintf(stderr, "foliosim: %s\n", err);
		fsim_script_free(s);
		return NULL;
	}
	return s;
}
