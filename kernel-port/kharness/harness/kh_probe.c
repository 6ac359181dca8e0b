// SPDX-License-Identifier: GPL-2.0
/*
 * kharness, harness half: what the kernel code does with a call the model
 * refuses, asked in a child process.  The model refuses misuse (removing
 * a mapping that does not exist, an exclusive add of a shared page, an
 * overflow) and leaves every counter as it was; the kernel code has no
 * such refusals: it warns, BUG()s, or corrupts its counters silently.  The
 * call runs in a fork()ed copy of the harness, so that whatever it does
 * is thrown away with the child, as the model threw the call away, and
 * the parent's kernel state stays equal to the model's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kh_harness.h"
#include "kh_exec.h"

struct probe_msg {
	int outcome;
	int err;
	struct kh_event_site site;
};

int kh_probe(int (*call)(void *arg), void *arg, struct kh_probe_result *res)
{
	struct probe_msg msg;
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	fflush(NULL);
	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		jmp_buf jump;

		close(fds[0]);
		memset(&msg, 0, sizeof(msg));
		kh_report_quiet(true);
		kh_events_reset();
		kh_set_bug_jump(&jump);
		if (setjmp(jump)) {
			msg.outcome = KH_PROBE_BUG;
		} else {
			msg.err = call(arg);
			msg.outcome = kh_events()->warnings ? KH_PROBE_WARN :
				      msg.err ? KH_PROBE_REFUSED : KH_PROBE_SILENT;
		}
		msg.site = kh_events()->last;
		if (write(fds[1], &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	got = read(fds[0], &msg, sizeof(msg));
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (got != (ssize_t)sizeof(msg) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		/* the kernel code crashed the child (a wild access) */
		res->outcome = KH_PROBE_CRASH;
		res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		return 0;
	}
	res->outcome = msg.outcome;
	res->err = msg.err;
	res->site = msg.site;
	return 0;
}

const char *kh_probe_outcome_name(int outcome)
{
	switch (outcome) {
	case KH_PROBE_WARN: return "warns";
	case KH_PROBE_BUG: return "BUG()s";
	case KH_PROBE_REFUSED: return "refuses";
	case KH_PROBE_CRASH: return "crashes";
	default: return "accepts it silently";
	}
}
