// SPDX-License-Identifier: MIT
/* A scenario's names (mms, folios, processes): numbered in the order of
 * their first declaration and found by hash, so that a generated scenario
 * declaring 32k mms parses and runs in linear time.  The parser numbers
 * the names of the resolved statements with it; the executor keeps its
 * symbols in the same order.  Also the arrays' growth rule, scn_array_room(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

bool scn_array_room(void **arr, size_t n, size_t size)
{
	size_t cap = n ? 2 * n : 1;
	void *mem;

	if (n & (n - 1))
		return true;	/* not a power of two: the room is there */
	if (cap > SIZE_MAX / size)
		return false;
	mem = realloc(*arr, cap * size);
	if (!mem)
		return false;
	*arr = mem;
	return true;
}

/* FNV-1a: names are short. */
static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ull;
	return (size_t)h;
}

/* The slot of @name, or the free slot where it would go. */
static size_t *hash_slot(const struct name_table *t, const char *name)
{
	size_t mask = t->hash_size - 1;
	size_t i = name_hash(name) & mask;

	while (t->hash[i] && strcmp(t->name[t->hash[i] - 1], name))
		i = (i + 1) & mask;
	return &t->hash[i];
}

/* Keeps the hash at most half full once one more name is in. */
static bool hash_room(struct name_table *t)
{
	size_t size = t->hash_size ? 2 * t->hash_size : 64;
	size_t *old = t->hash, k;

	if (2 * (t->n + 1) < t->hash_size)
		return true;
	t->hash = calloc(size, sizeof(*t->hash));
	if (!t->hash) {
		t->hash = old;
		return false;
	}
	t->hash_size = size;
	for (k = 0; k < t->n; k++)
		*hash_slot(t, t->name[k]) = k + 1;
	free(old);
	return true;
}

int names_find(const struct name_table *t, const char *name)
{
	size_t *slot;

	if (!name || !t->hash_size)
		return -1;
	slot = hash_slot(t, name);
	return *slot ? (int)(*slot - 1) : -1;
}

int names_declare(struct name_table *t, const char *name)
{
	int found = names_find(t, name);
	void *mem = t->name;
	char *copy;

	if (found >= 0)
		return found;
	if (t->n >= INT32_MAX)
		return -1;
	copy = malloc(strlen(name) + 1);
	/* Everything that can fail first: a failed declaration changes nothing. */
	if (!copy || !scn_array_room(&mem, t->n, sizeof(*t->name))) {
		free(copy);
		return -1;
	}
	t->name = mem;
	if (!hash_room(t)) {
		free(copy);
		return -1;
	}
	strcpy(copy, name);
	t->name[t->n] = copy;
	*hash_slot(t, copy) = ++t->n;
	return (int)(t->n - 1);
}

void names_free(struct name_table *t)
{
	size_t k;

	for (k = 0; k < t->n; k++)
		free(t->name[k]);
	free(t->name);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}
