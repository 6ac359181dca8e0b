// SPDX-License-Identifier: MIT
/* fsim_script_reader: a scenario file parsed one scenario at a time.  The
 * file is split at the lines whose first token is `scenario`; each piece
 * goes to the parser with its first line number, so messages and
 * fsim_script_line() give the same FILE:LINE as fsim_script_load(). */
#define _POSIX_C_SOURCE 200809L	/* getline() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

struct fsim_script_reader {
	FILE *f;
	bool std_in;
	char *name;		/* in messages: the path, or <stdin> */
	char *line;		/* getline()'s buffer */
	size_t line_cap;
	ssize_t line_len;	/* the line read ahead, or -1 */
	unsigned int line_no;	/* of the line read ahead */
	char *chunk;		/* the lines of the scenario being gathered */
	size_t chunk_len, chunk_cap;
	size_t count;
	bool eof;
};

/* Whether @line starts a scenario: its first token is `scenario`. */
static bool starts_scenario(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\f\v", line[i]) && line[i])
		i++;
	return len - i >= 8 && !memcmp(line + i, "scenario", 8) && (len - i == 8 || line[i + 8]) &&
	       (len - i == 8 || strchr(" \t\r\f\v\n#", line[i + 8]));
}

static int chunk_append(struct fsim_script_reader *r, const char *s, size_t n)
{
	if (r->chunk_len + n > r->chunk_cap) {
		size_t cap = r->chunk_cap ? r->chunk_cap : 4096;
		char *mem;

		while (cap < r->chunk_len + n)
			cap *= 2;
		mem = realloc(r->chunk, cap);
		if (!mem)
			return -ENOMEM;
		r->chunk = mem;
		r->chunk_cap = cap;
	}
	memcpy(r->chunk + r->chunk_len, s, n);
	r->chunk_len += n;
	return 0;
}

/* Reads the next line into r->line; -1 at the end, -errno on an error. */
static int read_line(struct fsim_script_reader *r)
{
	errno = 0;
	r->line_len = getline(&r->line, &r->line_cap, r->f);
	if (r->line_len < 0) {
		r->eof = true;
		if (ferror(r->f))
			return errno ? -errno : -EIO;
		return -1;
	}
	r->line_no++;
	return 0;
}

int fsim_script_reader_open(const char *path, struct fsim_script_reader **out,
			    char *err, size_t errlen)
{
	struct fsim_script_reader *r;
	int ret;

	if (!path || !out)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(strcmp(path, "-") ? path : "<stdin>"))) {
		free(r);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->std_in = !strcmp(path, "-");
	r->f = r->std_in ? stdin : fopen(path, "rb");
	r->line_len = -1;
	if (!r->f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fsim_script_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* Gathers the lines of the next scenario into r->chunk; 0 or -errno. */
static int gather(struct fsim_script_reader *r, unsigned int *first_line)
{
	bool content = false;
	int ret;

	r->chunk_len = 0;
	*first_line = r->line_no + (r->line_len < 0);
	for (;;) {
		if (r->line_len < 0) {
			ret = read_line(r);
			if (ret == -1)
				return 0;
			if (ret)
				return ret;
		}
		if (content && starts_scenario(r->line, (size_t)r->line_len))
			return 0;	/* read ahead: the next scenario's first line */
		content |= scn_has_token(r->line, (size_t)r->line_len);
		ret = chunk_append(r, r->line, (size_t)r->line_len);
		if (ret)
			return ret;
		r->line_len = -1;
	}
}

int fsim_script_reader_next(struct fsim_script_reader *r, struct fsim_script **out,
			    char *err, size_t errlen)
{
	unsigned int first_line;
	int ret;

	if (!r || !out)
		return -EINVAL;
	*out = NULL;
	if (r->eof && r->line_len < 0)
		return 0;
	ret = gather(r, &first_line);
	if (!ret && r->chunk_len)
		ret = script_parse_lines(r->name, r->chunk, r->chunk_len, first_line, out);
	if (ret)
		return script_read_error(r->name, ret, err, errlen);
	if (*out && !fsim_script_count(*out)) {	/* only comments were left */
		fsim_script_free(*out);
		*out = NULL;
	}
	r->count += *out != NULL;
	return 0;
}

size_t fsim_script_reader_count(const struct fsim_script_reader *r)
{
	return r ? r->count : 0;
}

void fsim_script_reader_close(struct fsim_script_reader *r)
{
	if (!r)
		return;
	if (r->f && !r->std_in)
		fclose(r->f);
	free(r->line);
	free(r->chunk);
	free(r->name);
	free(r);
}
