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
#include "cli.h"
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
"  snapshot [--modes M,...] PID...|--all  (root) what the processes' /proc would\n"
"                                      read in each mode, next to the running\n"
"                                      kernel's own figures; see 'snapshot --help'\n"
"  help                                this text\n"
"  version                             the library version\n"
"\n"
"options:\n"
"  --mode MODE          accounting mode (default rfc): legacy = Linux 6.12,\n"
"                       base = 6.12 + prep with CONFIG_PAGE_MAPCOUNT=y (the RFC's\n"
"                       base tree), rfc = after the series\n"
"  --from/--to MODE     diff: the two modes compared\n"
"  --no-invariants      do not run the oracle's invariant check after each statement\n"
"  --format text|json   check, run, diff, report: text (default; report: Markdown)\n"
"                       or JSON (schema: docs/json.md)\n"
"  --tap                check: TAP version 13 (plan line, ok / not ok with the\n"
"                       FILE:LINE reason, # SKIP)\n"
"  --max-repeat N       check, run, diff, report: allow 'repeat' counts up to N\n"
"                       (default 10000000; a larger count is refused at its line)\n"
"  --no-progress        check, run: no progress lines on standard error (by\n"
"                       default a scenario running longer than 3 s reports its\n"
"                       line and calls: every second on a terminal, else every 10 s)\n"
"\n"
"FILE may be - (standard input, named <stdin> in messages).\n"
"The scenario language is described in docs/scenario-format.md.\n"
"exit status: 0 success, 1 a scenario failed (kunit-gen: could not be translated),\n"
"2 usage or file error (a file that cannot be read, is a directory, holds no\n"
"scenario or a repeat above the cap)\n"
"'foliosim COMMAND --help' describes one command.\n";

/* Per-command help: what `foliosim COMMAND --help` prints. */
static const struct {
	const char *cmd, *text;
} command_help[] = {
	{ "check", "usage: foliosim check [--mode legacy|base|rfc] [--format text|json|tap]\n"
	  "                      [--tap] [--no-invariants] [--max-repeat N] [--no-progress]\n"
	  "                      FILE...\n"
	  "Runs every scenario of every FILE in one mode (default rfc): one line per\n"
	  "scenario (ok, FAIL with FILE:LINE and the reason, skip with the reason), then\n"
	  "'N passed, M failed[, K skipped]'.  A file is read one scenario at a time\n"
	  "(standard input and pipes whole); a scenario running longer than 3 s reports\n"
	  "its progress on standard error (--no-progress: not).\n"
	  "exit: 0 nothing failed, 1 a scenario failed, 2 usage or file error.\n" },
	{ "run", "usage: foliosim run [--mode legacy|base|rfc] [--format text|json]\n"
	  "                    [--no-invariants] [--max-repeat N] [--no-progress] FILE\n"
	  "Runs every scenario of FILE and prints the state after each statement: the\n"
	  "folio touched, the node statistics, every process's regions; expect lines\n"
	  "of another mode are marked 'not checked'.\n"
	  "exit: 0 nothing failed, 1 a scenario failed, 2 usage or file error.\n" },
	{ "diff", "usage: foliosim diff [--from MODE] [--to MODE] [--format text|json]\n"
	  "                     [--max-repeat N] FILE\n"
	  "Runs every scenario of FILE in two modes (default legacy and rfc; --from base\n"
	  "isolates what the 13 patches change) and prints after each step the values\n"
	  "that differ.  --mode does not apply (use --from and --to).\n"
	  "exit: 0 ran, 1 a scenario could not run in a mode, 2 usage or file error.\n" },
	{ "report", "usage: foliosim report [--format text|json] [--max-repeat N] FILE...\n"
	  "Markdown (or JSON): per scenario the values that differ between 6.12, the\n"
	  "base tree and the RFC, where each difference comes from, and which /proc\n"
	  "readers drift in which direction.  Runs all three modes: --mode, --from and\n"
	  "--to do not apply.\n"
	  "exit: 0 written, 1 a scenario could not run, 2 usage or file error.\n" },
};

static void print_command_help(const char *cmd)
{
	for (size_t i = 0; i < sizeof(command_help) / sizeof(command_help[0]); i++)
		if (!strcmp(command_help[i].cmd, cmd)) {
			fputs(command_help[i].text, stdout);
			return;
		}
	fputs(usage, stdout);
}

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

/* --format FMT / --format=FMT; --tap is --format tap.  0, 1 if @a is not
 * a format option, -1 after a message. */
static int format_option(int argc, char **argv, int *i, struct options *o)
{
	const char *a = argv[*i], *f;

	if (!strcmp(a, "--tap")) {
		f = "tap";
	} else if (!strncmp(a, "--format=", 9)) {
		f = a + 9;
	} else if (!strcmp(a, "--format")) {
		if (*i + 1 == argc) {
			fprintf(stderr, "foliosim: --format needs text or json\n");
			return -1;
		}
		f = argv[++*i];
	} else {
		return 1;
	}
	if (!strcmp(f, "text"))
		o->format = FORMAT_TEXT;
	else if (!strcmp(f, "json"))
		o->format = FORMAT_JSON;
	else if (!strcmp(f, "tap"))
		o->format = FORMAT_TAP;
	else {
		fprintf(stderr, "foliosim: unknown format '%s' (text or json)\n", f);
		return -1;
	}
	return 0;
}

/* The formats each command writes. */
static bool format_allowed(const char *cmd, enum output_format f)
{
	if (f == FORMAT_TAP)
		return !strcmp(cmd, "check");
	return true;
}

/* --max-repeat N / --max-repeat=N: 0, 1 if @a is not that option, -1
 * after a message. */
static int max_repeat_option(int argc, char **argv, int *i, struct options *o)
{
	const char *a = argv[*i], *v;
	char *end;

	if (!strncmp(a, "--max-repeat=", 13))
		v = a + 13;
	else if (!strcmp(a, "--max-repeat") && *i + 1 < argc)
		v = argv[++*i];
	else if (!strcmp(a, "--max-repeat"))
		v = "";
	else
		return 1;
	errno = 0;
	o->max_repeat = strtoull(v, &end, 10);
	if (!*v || *end || errno || !o->max_repeat) {
		fprintf(stderr, "foliosim: --max-repeat needs a count >= 1\n");
		return -1;
	}
	return 0;
}

/* Options that mean nothing to a command are refused, not ignored. */
static int check_applicable(const char *cmd, const struct options *o)
{
	const bool diff = !strcmp(cmd, "diff"), report = !strcmp(cmd, "report");

	if (o->mode_set && (diff || report)) {
		fprintf(stderr, "foliosim %s: --mode does not apply%s\n", cmd,
			diff ? " (use --from and --to)" : " (report runs every mode)");
		return -1;
	}
	if ((o->from_set || o->to_set) && !diff) {
		fprintf(stderr, "foliosim %s: --from and --to are for diff only\n", cmd);
		return -1;
	}
	if (o->progress_set && (diff || report)) {
		fprintf(stderr, "foliosim %s: --no-progress is for check and run only\n", cmd);
		return -1;
	}
	if (o->no_invariants && (diff || report)) {
		fprintf(stderr, "foliosim %s: --no-invariants is for check and run only\n",
			cmd);
		return -1;
	}
	return 0;
}

static int parse_options(const char *cmd, int argc, char **argv, struct options *o)
{
	int i, r;

	o->mode_set = o->from_set = o->to_set = false;
	o->max_repeat = DEFAULT_MAX_REPEAT;
	o->mode = FSIM_MODE_RFC;
	o->from = FSIM_MODE_LEGACY;
	o->to = FSIM_MODE_RFC;
	o->no_invariants = false;
	o->progress = true;
	o->progress_set = false;
	o->format = FORMAT_TEXT;
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
		} else if ((r = format_option(argc, argv, &i, o)) <= 0) {
			if (r < 0)
				return -1;
			continue;
		} else if ((r = max_repeat_option(argc, argv, &i, o)) <= 0) {
			if (r < 0)
				return -1;
			continue;
		} else if (!strcmp(a, "--no-invariants")) {
			o->no_invariants = true;
			continue;
		} else if (!strcmp(a, "--no-progress")) {
			o->progress = false;
			o->progress_set = true;
			continue;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_command_help(cmd);
			free(o->files);
			exit(0);
		} else if (a[0] == '-' && a[1]) {	/* "-" alone: standard input */
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
		o->mode_set |= target == &o->mode;
		o->from_set |= target == &o->from;
		o->to_set |= target == &o->to;
	}
	return check_applicable(cmd, o);
}

int main(int argc, char **argv)
{
	struct options o;
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int ret;

	if (!cmd) {	/* a usage error: the text goes to standard error */
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("foliosim %s\n", FSIM_VERSION_STRING);
		return 0;
	}
	if (!strcmp(cmd, "kunit-gen"))
		return cmd_kunit_gen(argc - 2, argv + 2);
	if (!strcmp(cmd, "snapshot"))
		return cmd_snapshot(argc - 2, argv + 2);
	if (strcmp(cmd, "check") && strcmp(cmd, "run") && strcmp(cmd, "diff") &&
	    strcmp(cmd, "report")) {
		fprintf(stderr, "foliosim: unknown command '%s'\n\n%s", cmd, usage);
		return 2;
	}
	if (parse_options(cmd, argc - 2, argv + 2, &o)) {
		free(o.files);
		fprintf(stderr, "try 'foliosim --help'\n");
		return 2;
	}
	if (!format_allowed(cmd, o.format)) {
		free(o.files);
		fprintf(stderr, "foliosim %s: --tap is for check only\n", cmd);
		return 2;
	}
	ret = !strcmp(cmd, "check") ? cmd_check(&o) :
	      !strcmp(cmd, "diff") ? cmd_diff(&o) :
	      !strcmp(cmd, "report") ? cmd_report(&o) : cmd_run(&o);
	free(o.files);
	return ret;
}
