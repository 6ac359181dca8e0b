// SPDX-License-Identifier: MIT
/* The JSON of a lockstep comparison (docs/json.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diff_json.h"
#include "json.h"

struct json_diff {
	FILE *out;
	diff_json_hook hook;
	void *hook_arg;
	unsigned int line;	/* of the open step, 0 if none */
	size_t values;		/* in the open step */
};

/* A value: a number, or "yes"/"no"/"none" as the scenario language has it. */
static void json_value(FILE *out, const struct fsim_diff_value *v, size_t m)
{
	char text[32];

	if (v->boolean || (v->order && v->values[m] < 0)) {
		fsim_diff_value_text(v, m, text, sizeof(text));
		json_str(out, text);
	} else {
		fprintf(out, "%" PRId64, v->values[m]);
	}
}

static int json_row(void *arg, const struct fsim_diff_value *v)
{
	struct json_diff *j = arg;
	const int64_t a = v->values[0], b = v->values[v->nmodes - 1];
	const char *from = NULL;
	char label[256];
	size_t m;

	if (j->hook && j->hook(j->hook_arg, v, &from))
		return 1;
	if (j->line != v->line) {
		if (j->line)
			fprintf(j->out, "\n        ]}");
		fprintf(j->out, "%s\n      {\"line\":%u,", j->line ? "," : "", v->line);
		json_kv_str(j->out, "statement", v->statement);
		fprintf(j->out, ",\"values\":[");
		j->line = v->line;
		j->values = 0;
	}
	fsim_diff_value_label(v, label, sizeof(label));
	fprintf(j->out, "%s\n          {", j->values++ ? "," : "");
	json_kv_str(j->out, "key", label);
	fprintf(j->out, ",");
	json_kv_str(j->out, "group", v->group);
	fprintf(j->out, ",");
	json_kv_str(j->out, "subject", v->subject);
	fprintf(j->out, ",");
	json_kv_str(j->out, "region", v->region);
	fprintf(j->out, ",");
	json_kv_str(j->out, "name", v->key);
	if (v->per_page)
		fprintf(j->out, ",\"pages\":[%" PRIu64 ",%" PRIu64 "]", v->first_page,
			v->last_page);
	for (m = 0; m < v->nmodes; m++) {
		fprintf(j->out, ",\"%s\":", fsim_mode_name(v->modes[m]));
		json_value(j->out, v, m);
	}
	/* The size of the difference, last mode minus first. */
	if (!v->boolean && !v->order) {
		fprintf(j->out, ",\"difference\":%" PRId64, b - a);
		if (a)
			fprintf(j->out, ",\"relative\":%.4f",
				(double)(b - a) / (double)(a < 0 ? -a : a));
		else
			fprintf(j->out, ",\"relative\":null");
	}
	if (from && *from) {
		fprintf(j->out, ",");
		json_kv_str(j->out, "from", from);
	}
	fprintf(j->out, "}");
	return 0;
}

int diff_json_scenario(FILE *out, const struct fsim_script *s, size_t i,
		       const enum fsim_mode *modes, size_t nmodes, bool comma,
		       diff_json_hook hook, void *hook_arg)
{
	struct json_diff j = { out, hook, hook_arg, 0, 0 };
	char err[512] = "";
	int status;

	fprintf(out, "%s\n    {", comma ? "," : "");
	json_kv_str(out, "name", fsim_script_name(s, i));
	fprintf(out, ",");
	json_kv_str(out, "file", fsim_script_file(s));
	fprintf(out, ",\"line\":%u,\"steps\":[", fsim_script_line(s, i));
	status = fsim_script_compare(s, i, modes, nmodes, json_row, &j, err, sizeof(err));
	if (j.line)
		fprintf(out, "\n        ]}");
	fprintf(out, "\n    ],");
	json_kv_str(out, "status", status == 0 ? "complete" :
				   status == -EOPNOTSUPP ? "skipped" : "stopped");
	fprintf(out, ",");
	json_kv_str(out, "message", *err ? err : NULL);
	fprintf(out, "}");
	return status;
}
