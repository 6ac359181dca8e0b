/* SPDX-License-Identifier: MIT */
/* Progress of long scenario runs on standard error (check and run). */
#ifndef FOLIOSIM_CLI_PROGRESS_H
#define FOLIOSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <time.h>

/* Quiet for the first PROGRESS_AFTER_S seconds of a scenario: short runs
 * print nothing. */
#define PROGRESS_AFTER_S 3

struct progress {
	bool enabled;
	bool tty;		/* rewrite one line (\r) instead of a line per report */
	const char *file, *scenario;
	struct timespec start, last;
	bool shown;
};

void progress_init(struct progress *p, bool enabled);
void progress_begin(struct progress *p, const char *file, const char *scenario);
/* fsim_progress_fn: prints "foliosim: FILE:LINE: scenario S: N calls, T s". */
int progress_report(void *arg, unsigned int line, unsigned long long calls);
/* Ends the scenario's progress line, if one was shown. */
void progress_end(struct progress *p);

#endif /* FOLIOSIM_CLI_PROGRESS_H */
