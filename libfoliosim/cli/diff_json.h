/* SPDX-License-Identifier: MIT */
/* One scenario's lockstep comparison as JSON (diff and report). */
#ifndef FOLIOSIM_CLI_DIFF_JSON_H
#define FOLIOSIM_CLI_DIFF_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "foliosim/scenario.h"

/* Called for each value before it is written; *from, if set non-empty,
 * is written as the value's "from" (report: where it comes from). */
typedef int (*diff_json_hook)(void *arg, const struct fsim_diff_value *v,
			      const char **from);

/* Writes {"name","file","line","steps":[{"line","statement","values":
 * [{"key", MODE: value..., "difference","relative"}]}],"status",
 * "message"} for scenario @i compared in @modes; @comma: one came before.
 * Returns fsim_script_compare()'s status (0, -EOPNOTSUPP skipped, another
 * negative errno stopped). */
int diff_json_scenario(FILE *out, const struct fsim_script *s, size_t i,
		       const enum fsim_mode *modes, size_t nmodes, bool comma,
		       diff_json_hook hook, void *hook_arg);

#endif /* FOLIOSIM_CLI_DIFF_JSON_H */
