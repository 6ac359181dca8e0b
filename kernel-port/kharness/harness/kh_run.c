// SPDX-License-Identifier: GPL-2.0
/*
 * kh-run: the scenario files on the kernel's own rmap code, the fourth
 * executor beside the model (foliosim check), KUnit and the guest.
 *
 *   kh-run [--tap] [--quiet] FILE...
 *
 * Each scenario runs in a child process (a kernel BUG() or a wild access
 * ends only it) on the tree this binary was built from, with the model of
 * the tree's mode in lockstep: every statement in both, every expectation
 * read from the kernel's state, the touched folio and the statistics
 * compared after every call, and every call the model refuses asked of
 * the kernel code in a child of the child (kh_probe.c).
 *
 * Prints one line per scenario (TAP 13 with --tap), the skip reasons
 * counted, what the kernel code did with the refused calls, and last
 * "N passed, N failed, N skipped".  Exit 0 if none failed, 1 if one did,
 * 2 for bad arguments or a file that cannot be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kh_exec.h"

struct tally {
	unsigned long pass, fail, skip;
	struct kh_refusals refusals;
	unsigned long calls, expects;
	struct reason {
		char text[200];
		unsigned long count;
	} reasons[64];
	size_t nreasons;
};

static void count_reason(struct tally *t, const char *msg)
{
	const char *text = msg;
	size_t i, reason_len;

	/* "FILE:LINE: reason": count by the reason alone */
	if (strstr(text, ".scn:")) {
		text = strstr(text, ".scn:") + 5;
		text += strspn(text, "0123456789");
		text += strspn(text, ": ");
	}
	reason_len = strlen(text);
	/* "reason [details]": count by the reason */
	if (strstr(text, " ["))
		reason_len = (size_t)(strstr(text, " [") - text);
	if (reason_len > sizeof(t->reasons[0].text) - 1)
		reason_len = sizeof(t->reasons[0].text) - 1;
	for (i = 0; i < t->nreasons; i++)
		if (strlen(t->reasons[i].text) == reason_len &&
		    !strncmp(t->reasons[i].text, text, reason_len)) {
			t->reasons[i].count++;
			return;
		}
	if (t->nreasons < sizeof(t->reasons) / sizeof(t->reasons[0])) {
		memcpy(t->reasons[t->nreasons].text, text, reason_len);
		t->reasons[t->nreasons].text[reason_len] = '\0';
		t->reasons[t->nreasons++].count = 1;
	}
}

/* One scenario in a child; its struct kh_scn comes back through a pipe. */
static void run_isolated(const struct fsim_script *s, size_t i, struct kh_scn *out)
{
	int fds[2], status;
	pid_t pid;
	ssize_t got;

	memset(out, 0, sizeof(*out));
	fflush(NULL);
	if (pipe(fds) || (pid = fork()) < 0) {
		out->outcome = FSIM_FAIL;
		snprintf(out->message, sizeof(out->message), "cannot fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct kh_scn scn;

		close(fds[0]);
		kh_scenario_run(s, i, &scn);
		scn.script = NULL;
		scn.ctx = NULL;
		scn.names = NULL;
		if (write(fds[1], &scn, sizeof(scn)) != (ssize_t)sizeof(scn))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	got = read(fds[0], out, sizeof(*out));
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof(*out) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		memset(out, 0, sizeof(*out));
		out->outcome = FSIM_FAIL;
		snprintf(out->message, sizeof(out->message), "the scenario's process died%s%s",
			 WIFSIGNALED(status) ? ": " : "",
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
	}
}

static void usage(FILE *to)
{
	fprintf(to, "Usage: kh-run [--tap] [--quiet] FILE...\n"
		"Runs the rmap scenarios of each FILE on this tree's mm/rmap.c (%s)\n"
		"with the model beside it. Exit 0: none failed; 1: one failed; 2: usage.\n",
		kh_tree_label());
}

int main(int argc, char **argv)
{
	struct tally t;
	bool tap = false, quiet = false;
	unsigned long n = 0;
	const char *missing;
	int a, first = 1;
	size_t i;

	memset(&t, 0, sizeof(t));
	if (kh_init()) {
		fprintf(stderr, "kh-run: cannot reserve the memory map\n");
		return 2;
	}
	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		if (!strcmp(argv[first], "--tap"))
			tap = true;
		else if (!strcmp(argv[first], "--quiet"))
			quiet = true;
		else if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "kh-run: unknown option '%s'\n", argv[first]);
			usage(stderr);
			return 2;
		}
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	missing = kh_expect_missing_key();
	if (missing) {
		fprintf(stderr, "kh-run: the library's expect key '%s' has no kernel reader "
			"in kernel-port/kharness/harness/kh_expect.c\n", missing);
		return 2;
	}
	if (tap)
		printf("TAP version 13\n");
	printf("# kh-run: %s\n", kh_tree_label());
	for (a = first; a < argc; a++) {
		struct fsim_script *s;
		char err[256];

		if (fsim_script_load(argv[a], &s, err, sizeof(err))) {
			fprintf(stderr, "kh-run: %s\n", err);
			return 2;
		}
		for (i = 0; i < fsim_script_count(s); i++) {
			struct kh_scn r;
			const char *name = fsim_script_name(s, i);

			run_isolated(s, i, &r);
			n++;
			t.calls += r.calls;
			t.expects += r.expects_checked;
			t.refusals.warn += r.refusals.warn;
			t.refusals.bug += r.refusals.bug;
			t.refusals.refused += r.refusals.refused;
			t.refusals.not_asked += r.refusals.not_asked;
			t.refusals.silent_declared += r.refusals.silent_declared;
			switch (r.outcome) {
			case FSIM_PASS:
				t.pass++;
				if (tap)
					printf("ok %lu - %s: %s\n", n, argv[a], name);
				else if (!quiet)
					printf("ok    %s: %s\n", argv[a], name);
				break;
			case FSIM_SKIP:
				t.skip++;
				count_reason(&t, r.message);
				if (tap)
					printf("ok %lu - %s: %s # SKIP %s\n", n, argv[a], name, r.message);
				else if (!quiet)
					printf("skip  %s: %s (%s)\n", argv[a], name, r.message);
				break;
			default:
				t.fail++;
				if (tap)
					printf("not ok %lu - %s: %s\n#   %s\n", n, argv[a], name, r.message);
				else
					printf("FAIL  %s: %s\n      %s\n", argv[a], name, r.message);
				break;
			}
		}
		fsim_script_free(s);
	}
	if (tap)
		printf("1..%lu\n", n);
	printf("# %lu rmap calls in both executors, %lu expectations read on the kernel code\n",
	       t.calls, t.expects);
	printf("# calls the model refuses: the kernel code warns on %lu, BUG()s on %lu, "
	       "refuses %lu, takes %lu silently as the scenarios say (kernel=silent); "
	       "%lu not asked (outside the folio or the rmap code)\n",
	       t.refusals.warn, t.refusals.bug, t.refusals.refused,
	       t.refusals.silent_declared, t.refusals.not_asked);
	for (i = 0; i < t.nreasons; i++)
		printf("# skipped %lu: %s\n", t.reasons[i].count, t.reasons[i].text);
	printf("%lu passed, %lu failed, %lu skipped\n", t.pass, t.fail, t.skip);
	return t.fail ? 1 : 0;
}
