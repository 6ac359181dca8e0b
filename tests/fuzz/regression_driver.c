// SPDX-License-Identifier: MIT
/*
 * Replays files through a fuzz target without a fuzzing engine, so that
 * the committed corpora (tests/fuzz/corpus/<target>/) run under plain
 * ctest with any compiler.  A target reports a bug by crashing, so the
 * ctest fails exactly when an input still crashes.
 *
 *   fuzz_<target>_regress FILE|DIR...
 *
 * Directories are read in sorted order (stable output); an empty
 * directory is an error, so a mistyped corpus path cannot pass silently.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Every regular file of @dir, sorted; returns how many ran, -1 on error. */
static long run_dir(const char *dir)
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
		if (run_file(path) == 0)
			ran++;
		else
			ran = -1 - (long)n;	/* stays negative: an unreadable file */
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	long total = 0, ran;
	struct stat sb;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			ran = run_dir(argv[i]);
		else
			ran = run_file(argv[i]) == 0 ? 1 : -1;
		if (ran <= 0) {
			fprintf(stderr, "regression: %s: %s\n", argv[i],
				ran == 0 ? "no input files" : "unreadable");
			return 1;
		}
		total += ran;
	}
	printf("regression: %ld inputs replayed, no crash\n", total);
	return 0;
}
