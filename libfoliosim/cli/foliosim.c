// SPDX-License-Identifier: MIT
/* foliosim: the command line of libfoliosim. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foliosim/foliosim.h"
#include "foliosim/scenario.h"
#include "kunit_gen.h"

static const char usage[] =
"usage: foliosim COMMAND [OPTIONS] FILE...\n"
"\n"
"Model the Linux folio rmap accounting of 6.12 (legacy), of the RFC's base\n"
"tree (base: 6.12 + the prep part, CONFIG_PAGE_MAPCOUNT=y) and of the RFC\n"
"\"mm/rmap: support arbitrary folio mappings\" (rfc) on scenario files.\n"
"\n"
"commands:\n"
"  check [--mode MODE] FILE...         run every scenario, print one line per\n"
"                                      scenario and 'N passed, M failed[, K skipped]';\n"
"                                      exit 0 only if nothing failed (default mode rfc)\n"
"  run [--mode MODE] FILE              print a step-by-step trace of the folio state\n"
"                                      (and of every process) for every scenario of FILE\n"
"  diff [--from MODE] [--to MODE] FILE run every scenario of FILE in two modes side by\n"
"                                      side and print, after each step, the values that\n"
"                                      differ (default legacy to rfc; --from base\n"
"                                      isolates what the 13 patches change)\n"
"  report FILE...                      Markdown: per scenario the values that differ\n"
"                                      between 6.12, the base tree and the RFC, with\n"
"                                      where each difference comes from, and a summary\n"
"                                      of which /proc readers drift in which direction\n"
"  kunit-gen [-o FILE] FILE...          write the rmap statements of every scenario as\n"
"                                      a C header for the kernel's KUnit test\n"
"                                      (mm/folio_rmap_kunit.c); see docs/kunit-gen.md\n"
"  help                                this text\n"
"  version                             the library version\n"
"\n"
"options:\n"
"  --mode MODE          accounting mode (default rfc): legacy = Linux 6.12,\n"
"                       base = 6.12 + prep with CONFIG_PAGE_MAPCOUNT=y (the RFC's\n"
"                       base tree), rfc = after the series\n"
"  --from/--to MODE     diff: the two modes compared\n"
"  --no-invariants      do not run the oracle's invariant check after each statement\n"
"\n"
"The scenario language is described in docs/scenario-format.md.\n"
"exit status: 0 success, 1 a scenario failed (kunit-gen: could not be translated),\n"
"2 usage or file error\n";

struct options {
	enum fsim_mode mode;
	enum fsim_mode from, to;	/* diff */
	bool no_invariants;
	int nfiles;
	char **files;
};

/* The mode an option sets: --mode, --from, --to (also as --opt=MODE). */
static enum fsim_mode *mode_option(const char *a, struct options *o)
{
	static const char *const names[] = { "--mode", "--from", "--to" };
	enum fsim_mode *const targets[] = { &o->mode, &o->from, &o->to };
	size_t i, len;

	for (i = 0; i < 3; i++) {
		len = strlen(names[i]);
		if (!strncmp(a, names[i], len) && (a[len] == '\0' || a[len] == '='))
			return targets[i];
	}
	return NULL;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	int i;

	o->mode = FSIM_MODE_RFC;
	o->from = FSIM_MODE_LEGACY;
	o->to = FSIM_MODE_RFC;
	o->no_invariants = false;
	o->nfiles = 0;
	o->files = calloc((size_t)argc, sizeof(*o->files));
	if (!o->files)
		return -1;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *m = NULL;
		enum fsim_mode *target = mode_option(a, o);

		if (target && strchr(a, '=')) {
			m = strchr(a, '=') + 1;
		} else if (target) {
			if (i + 1 == argc) {
				fprintf(stderr, "foliosim: %s needs legacy, base or rfc\n", a);
				return -1;
			}
			m = argv[++i];
		} else if (!strcmp(a, "--no-invariants")) {
			o->no_invariants = true;
			continue;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "foliosim: unknown option '%s'\n", a);
			return -1;
		} else {
			o->files[o->nfiles++] = argv[i];
			continue;
		}
		if (fsim_mode_from_name(m, target)) {
			fprintf(stderr, "foliosim: unknown mode '%s' (legacy, base or rfc)\n", m);
			return -1;
		}
	}
	return 0;
}

static int cmd_check(struct options *o)
{
	unsigned long passed = 0, failed = 0, skipped = 0;
	struct fsim_run_options ro = { o->mode, NULL, o->no_invariants };
	int i;

	if (!o->nfiles) {
		fprintf(stderr, "foliosim check: no scenario file given\n");
		return 2;
	}
	for (i = 0; i < o->nfiles; i++) {
		struct fsim_script *s;
		char err[512];
		size_t k;

		if (fsim_script_load(o->files[i], &s, err, sizeof(err))) {
			fprintf(stderr, "foliosim: %s\n", err);
			printf("FAIL %s: %s\n", o->files[i], err);
			failed++;
			continue;
		}
		for (k = 0; k < fsim_script_count(s); k++) {
			struct fsim_result res;

			fsim_script_run(s, k, &ro, &res);
			switch (res.outcome) {
			case FSIM_PASS:
				printf("ok %s\n", fsim_script_name(s, k));
				passed++;
				break;
			case FSIM_SKIP:
				printf("skip %s: %s\n", fsim_script_name(s, k), res.message);
				skipped++;
				break;
			default:
				printf("FAIL %s: %s\n", fsim_script_name(s, k), res.message);
				failed++;
				break;
			}
		}
		fsim_script_free(s);
	}
	printf("%lu passed, %lu failed", passed, failed);
	if (skipped)
		printf(", %lu skipped", skipped);
	printf("\n");
	return failed ? 1 : 0;
}

/* The one scenario file of `run` and `diff`; NULL after a message. */
static struct fsim_script *load_single(const struct options *o, const char *cmd)
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
	return s;
}

static int cmd_diff(struct options *o)
{
	struct fsim_script *s = load_single(o, "diff");
	size_t k;
	int status = 0;

	if (!s)
		return 2;
	for (k = 0; k < fsim_script_count(s); k++) {
		if (fsim_script_diff_modes(s, k, o->from, o->to, stdout))
			status = 1;
		printf("\n");
	}
	fsim_script_free(s);
	return status;
}

/* One sentence per reader: the direction the RFC moves it, from counts. */
static void print_drift(const struct fsim_report_totals *t)
{
	int r;

	printf("In these scenarios, after the series:\n\n");
	for (r = 0; r < FSIM_READERS; r++) {
		const unsigned long lo = t->scenarios[r][0], hi = t->scenarios[r][1];
		const char *how;

		if (!lo && !hi)
			how = "never differs from 6.12";
		else if (lo && !hi)
			how = "is only ever lower than in 6.12 (under-estimated)";
		else if (hi && !lo)
			how = "is only ever higher than in 6.12 (over-estimated)";
		else
			how = "drifts both ways (over- and under-estimated)";
		printf("- %s %s", fsim_report_reader_name(r), how);
		if (lo || hi)
			printf(": lower in %lu, higher in %lu scenarios", lo, hi);
		printf(".\n");
	}
}

/* The size of each reader's error: its largest single change. */
static void print_worst(const struct fsim_report_totals *t)
{
	static const char *const unit[FSIM_READERS] = {
		"kB", "kB", "kB", "kB", "mappings", "", "mappings", "folios", "kB" };
	int r;

	printf("| reader | largest change, RFC - 6.12 | relative to 6.12 | where |\n"
	       "|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++) {
		if (!t->worst_abs[r]) {
			printf("| %s | none | | |\n", fsim_report_reader_name(r));
			continue;
		}
		printf("| %s | %+lld %s | ", fsim_report_reader_name(r),
		       (long long)t->worst_abs[r], unit[r]);
		if (*unit[r] && t->worst_rel[r])
			printf("%+.0f%%", t->worst_rel[r]);
		else if (*unit[r])
			printf("(6.12 reads 0)");
		printf(" | %s |\n", t->worst_where[r]);
	}
	printf("\n");
}

/* Which differences the base tree makes and which the 13 patches make. */
static void print_origin(const struct fsim_report_totals *t)
{
	int r;

	printf("## Where the differences come from: the base tree or the series\n\n");
	printf("Of the values where 6.12 and the RFC differ, how many the base tree "
	       "(6.12 + prep, CONFIG_PAGE_MAPCOUNT=y) already shows as the RFC does "
	       "(\"base tree\"), how many it still shows as 6.12 does (\"series\": "
	       "the 13 patches' own effect), and how many it shows differently from "
	       "both (\"both\").\n\n");
	printf("| reader | base tree | series | both |\n|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++)
		printf("| %s | %lu | %lu | %lu |\n", fsim_report_reader_name(r),
		       t->from_base[r], t->from_series[r], t->from_both[r]);
	printf("\n");
}

static int cmd_report(struct options *o)
{
	struct fsim_report_totals t;
	int i, r, status = 0;

	memset(&t, 0, sizeof(t));
	if (!o->nfiles) {
		fprintf(stderr, "foliosim report: no scenario file given\n");
		return 2;
	}
	printf("## Scenarios\n\n");
	for (i = 0; i < o->nfiles; i++) {
		struct fsim_script *s;
		char err[512];
		size_t k;

		if (fsim_script_load(o->files[i], &s, err, sizeof(err))) {
			fprintf(stderr, "foliosim: %s\n", err);
			return 2;
		}
		for (k = 0; k < fsim_script_count(s); k++)
			if (fsim_script_report(s, k, stdout, &t))
				status = 1;
		fsim_script_free(s);
	}
	printf("## Summary: how far each /proc reader drifts\n\n");
	printf("%lu scenarios ran in all modes; in %lu of them a user-visible value differs.\n\n",
	       t.scenarios_run, t.scenarios_differing);
	print_worst(&t);
	printf("| reader | scenarios where the RFC reads lower | higher | values (pages) lower | higher |\n"
	       "|---|---|---|---|---|\n");
	for (r = 0; r < FSIM_READERS; r++)
		printf("| %s | %lu | %lu | %lu | %lu |\n", fsim_report_reader_name(r),
		       t.scenarios[r][0], t.scenarios[r][1], t.changes[r][0], t.changes[r][1]);
	printf("\n(For pagemap bit 56, \"lower\" means a page shown exclusive in 6.12 is shown "
	       "maybe-shared after the series.)\n\n");
	print_origin(&t);
	print_drift(&t);
	return status;
}

static int cmd_run(struct options *o)
{
	struct fsim_run_options ro = { o->mode, stdout, o->no_invariants };
	struct fsim_script *s = load_single(o, "run");
	size_t k;
	int status = 0;

	if (!s)
		return 2;
	for (k = 0; k < fsim_script_count(s); k++) {
		struct fsim_result res;

		fsim_script_run(s, k, &ro, &res);
		if (res.outcome == FSIM_PASS) {
			printf("=> ok %s\n\n", fsim_script_name(s, k));
		} else if (res.outcome == FSIM_SKIP) {
			printf("=> skip %s: %s\n\n", fsim_script_name(s, k), res.message);
		} else {
			printf("=> FAIL %s: %s\n\n", fsim_script_name(s, k), res.message);
			status = 1;
		}
	}
	fsim_script_free(s);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	const char *cmd = argc > 1 ? argv[1] : "help";
	int ret;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return argc > 1 ? 0 : 2;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("foliosim %s\n", FSIM_VERSION_STRING);
		return 0;
	}
	if (!strcmp(cmd, "kunit-gen"))
		return cmd_kunit_gen(argc - 2, argv + 2);
	if (strcmp(cmd, "check") && strcmp(cmd, "run") && strcmp(cmd, "diff") &&
	    strcmp(cmd, "report")) {
		fprintf(stderr, "foliosim: unknown command '%s'\n\n%s", cmd, usage);
		return 2;
	}
	if (parse_options(argc - 2, argv + 2, &o)) {
		free(o.files);
		fprintf(stderr, "try 'foliosim --help'\n");
		return 2;
	}
	ret = !strcmp(cmd, "check") ? cmd_check(&o) :
	      !strcmp(cmd, "diff") ? cmd_diff(&o) :
	      !strcmp(cmd, "report") ? cmd_report(&o) : cmd_run(&o);
	free(o.files);
	return ret;
}
