// SPDX-License-Identifier: MIT
/*
 * Replays files through a fuzz target without a fuzzing engine, so that
 * the committed corpora (tests/fuzz/corpus/<target>/) run under plain
 * ctest with any compiler.  A target reports a bug by crashing, so the
 * ctest fails exactly when an input still crashes.
 *
 *   fuzz_<target>_regress FILE|DIR...
 *   fuzz_<target>_regress --mutate N [--seed S] FILE|DIR...
 *
 * Directories are read in sorted order (stable output); an empty
 * directory is an error, so a mistyped corpus path cannot pass silently.
 *
 * --mutate runs N inputs made by random mutations of the given ones
 * (byte flips, random bytes, inserts, deletes, chunks copied within an
 * input or spliced from another): a campaign without a fuzzing engine or
 * clang, for the long runs of docs/testing.md.  The same seed gives the
 * same inputs; an input that crashes the target is first written to
 * crash-mutate-<seed>-<index> in the current directory.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file; NULL on error.  An empty file gives a 1-byte
 * allocation so that the target still gets a valid pointer. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static int run_file(const char *path)
{
	size_t len = 0;
	uint8_t *buf = read_file(path, &len);

	if (!buf) {
		fprintf(stderr, "regression: cannot read %s\n", path);
		return -1;
	}
	/* Named before the run: a crash then points at its input. */
	fprintf(stderr, "regression: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The inputs --mutate starts from. */
struct seeds {
	uint8_t **buf;
	size_t *len;
	size_t n, cap;
};

static struct seeds seeds;

static int collect_file(const char *path)
{
	size_t len = 0;
	uint8_t *buf = read_file(path, &len);

	if (!buf) {
		fprintf(stderr, "mutate: cannot read %s\n", path);
		return -1;
	}
	if (seeds.n == seeds.cap) {
		size_t cap = seeds.cap ? 2 * seeds.cap : 64;
		uint8_t **b = realloc(seeds.buf, cap * sizeof(*b));
		size_t *l = b ? realloc(seeds.len, cap * sizeof(*l)) : NULL;

		if (b)
			seeds.buf = b;
		if (!l) {
			free(buf);
			return -1;
		}
		seeds.len = l;
		seeds.cap = cap;
	}
	seeds.buf[seeds.n] = buf;
	seeds.len[seeds.n++] = len;
	return 0;
}

/* @each (run_file, or collect_file for --mutate) on every regular file of
 * @dir, sorted; returns how many it took, -1 on error. */
static long run_dir(const char *dir, int (*each)(const char *path))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	long ran = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*p));

			if (!p)
				break;
			names = p;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (each(path) == 0)
			ran++;
		else
			ran = -1 - (long)n;	/* stays negative: an unreadable file */
		free(names[i]);
	}
	free(names);
	return ran;
}

/* ------------------------------------------------------------ --mutate -- */

#define MUTATE_MAX_LEN (64 * 1024)

static uint64_t rng_state;

/* splitmix64: the same stream on every platform. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* One random edit of buf[0..*len) (capacity MUTATE_MAX_LEN). */
static void mutate_once(uint8_t *buf, size_t *len)
{
	static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '=', '0', '9' };
	size_t n = *len, at = below(n + 1), k;
	const size_t src = below(seeds.n);

	switch (below(7)) {
	case 0:		/* flip a bit */
		if (n)
			buf[below(n)] ^= (uint8_t)(1u << below(8));
		break;
	case 1:		/* a random or interesting byte */
		if (n)
			buf[below(n)] = below(2) ? (uint8_t)rnd() :
				interesting[below(sizeof(interesting))];
		break;
	case 2:		/* insert a few random bytes */
		k = 1 + below(8);
		if (n + k <= MUTATE_MAX_LEN) {
			memmove(buf + at + k, buf + at, n - at);
			for (size_t i = 0; i < k; i++)
				buf[at + i] = (uint8_t)rnd();
			*len = n + k;
		}
		break;
	case 3:		/* delete a range */
		if (n) {
			at = below(n);
			k = 1 + below(n - at < 64 ? n - at : 64);
			memmove(buf + at, buf + at + k, n - at - k);
			*len = n - k;
		}
		break;
	case 4:		/* copy a chunk of the input over another place */
		if (n > 1) {
			size_t from = below(n), to = below(n);

			k = 1 + below(n - (from > to ? from : to));
			memmove(buf + to, buf + from, k);
		}
		break;
	case 5: {	/* splice: a chunk of another input inserted here */
		const size_t sl = seeds.len[src];
		size_t from = below(sl);

		k = sl ? 1 + below(sl - from < 256 ? sl - from : 256) : 0;
		if (k && n + k <= MUTATE_MAX_LEN) {
			memmove(buf + at + k, buf + at, n - at);
			memcpy(buf + at, seeds.buf[src] + from, k);
			*len = n + k;
		}
		break;
	}
	default:	/* truncate */
		*len = at;
		break;
	}
}

/* The input being run, for the crash handler. */
static uint8_t *cur_buf;
static size_t cur_len;
static char crash_name[64];

static void save_crash(int sig)
{
	int fd = open(crash_name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		ssize_t w = write(fd, cur_buf, cur_len);

		(void)w;
		close(fd);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int mutate_run(unsigned long long n, unsigned long long seed)
{
	uint8_t *buf = malloc(MUTATE_MAX_LEN);
	struct timespec t0, t1;
	unsigned long long i;
	double secs;

	if (!buf)
		return 1;
	rng_state = seed;
	cur_buf = buf;
	signal(SIGSEGV, save_crash);
	signal(SIGABRT, save_crash);
	signal(SIGBUS, save_crash);
	signal(SIGFPE, save_crash);
	fprintf(stderr, "mutate: %llu inputs from %zu seeds, seed %llu\n", n, seeds.n, seed);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		const size_t s = below(seeds.n);
		size_t len = seeds.len[s] < MUTATE_MAX_LEN ? seeds.len[s] : MUTATE_MAX_LEN;
		unsigned int k, edits = 1 + (unsigned int)below(8);

		memcpy(buf, seeds.buf[s], len);
		for (k = 0; k < edits; k++)
			mutate_once(buf, &len);
		cur_len = len;
		snprintf(crash_name, sizeof(crash_name), "crash-mutate-%llu-%llu", seed, i);
		LLVMFuzzerTestOneInput(buf, len);
		if (n >= 10 && (i + 1) % (n / 10) == 0)
			fprintf(stderr, "mutate: %llu/%llu inputs\n", i + 1, n);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("mutate: %llu inputs in %.1f s (%.0f/s), seed %llu, no crash\n", n, secs,
	       secs > 0 ? (double)n / secs : 0.0, seed);
	free(buf);
	return 0;
}

static unsigned long long parse_count(const char *prog, const char *opt, const char *v)
{
	char *end;
	unsigned long long x = strtoull(v, &end, 0);

	if (!*v || *end) {
		fprintf(stderr, "%s: %s needs a number, got '%s'\n", prog, opt, v);
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long long mutate = 0, seed = 1;
	int (*each)(const char *path);
	long total = 0, ran;
	struct stat sb;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s FILE|DIR...\n"
		       "       %s --mutate N [--seed S] FILE|DIR...\n"
		       "Replays every input file (every regular file of a DIR) through the\n"
		       "fuzz target, as libFuzzer and AFL++ would; --mutate runs N random\n"
		       "mutations of them instead.  Exit 0 when nothing crashed, 2 on bad\n"
		       "usage or an unreadable input.\n", argv[0], argv[0]);
		return 0;
	}
	while (i + 1 < argc && (!strcmp(argv[i], "--mutate") || !strcmp(argv[i], "--seed"))) {
		if (!strcmp(argv[i], "--mutate"))
			mutate = parse_count(argv[0], "--mutate", argv[i + 1]);
		else
			seed = parse_count(argv[0], "--seed", argv[i + 1]);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s FILE|DIR...\n"
			"       %s --mutate N [--seed S] FILE|DIR...\n", argv[0], argv[0]);
		return 2;
	}
	each = mutate ? collect_file : run_file;
	for (; i < argc; i++) {
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			ran = run_dir(argv[i], each);
		else
			ran = each(argv[i]) == 0 ? 1 : -1;
		if (ran <= 0) {
			fprintf(stderr, "regression: %s: %s\n", argv[i],
				ran == 0 ? "no input files" : "unreadable");
			return 1;
		}
		total += ran;
	}
	if (mutate)
		return mutate_run(mutate, seed);
	printf("regression: %ld inputs replayed, no crash\n", total);
	return 0;
}
