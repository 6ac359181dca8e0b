// SPDX-License-Identifier: MIT
/* Progress of long scenario runs: a `repeat` of millions runs for minutes
 * inside one statement, and a silent terminal looks hung. */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime(), fileno() */
#include <stdio.h>
#include <unistd.h>

#include "progress.h"

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_init(struct progress *p, bool enabled)
{
	p->enabled = enabled;
	p->tty = isatty(fileno(stderr));
	p->shown = false;
}

void progress_begin(struct progress *p, const char *file, const char *scenario)
{
	p->file = file;
	p->scenario = scenario;
	p->shown = false;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

int progress_report(void *arg, unsigned int line, unsigned long long calls)
{
	struct progress *p = arg;
	/* a terminal line is rewritten every second; a log gets a line every 10 s */
	const double every = p->tty ? 1.0 : 10.0;
	struct timespec now;

	if (!p->enabled)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (seconds_between(&p->start, &now) < PROGRESS_AFTER_S ||
	    (p->shown && seconds_between(&p->last, &now) < every))
		return 0;
	fprintf(stderr, "%sfoliosim: %s:%u: scenario %s: %llu calls, %.0f s%s",
		p->tty ? "\r" : "", p->file, line, p->scenario, calls,
		seconds_between(&p->start, &now), p->tty ? " " : "\n");
	fflush(stderr);
	p->shown = true;
	p->last = now;
	return 0;
}

void progress_end(struct progress *p)
{
	if (p->enabled && p->shown && p->tty)
		fputc('\n', stderr);
	p->shown = false;
}
