// SPDX-License-Identifier: MIT
/* foliosim diff: text (fsim_script_diff_modes()) or JSON, built on
 * fsim_script_compare()'s callback. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diff_json.h"
#include "json.h"

int cmd_diff(struct options *o)
{
	const enum fsim_mode modes[2] = { o->from, o->to };
	struct fsim_script *s = load_single(o, "diff");
	size_t k;
	int status = 0;

	if (!s)
		return 2;
	if (o->format == FORMAT_JSON) {
		printf("{\n  \"modes\":[\"%s\",\"%s\"],\n  \"scenarios\":[",
		       fsim_mode_name(o->from), fsim_mode_name(o->to));
		for (k = 0; k < fsim_script_count(s); k++) {
			int st = diff_json_scenario(stdout, s, k, modes, 2, k > 0, NULL, NULL);

			if (st && st != -EOPNOTSUPP)
				status = 1;
		}
		printf("\n  ]\n}\n");
		fsim_script_free(s);
		return status;
	}
	for (k = 0; k < fsim_script_count(s); k++) {
		if (fsim_script_diff_modes(s, k, o->from, o->to, stdout))
			status = 1;
		printf("\n");
	}
	fsim_script_free(s);
	return status;
}
