/* SPDX-License-Identifier: MIT */
/*
 * A small structured data producer for the fuzz targets, in the manner of
 * zstd's tests/fuzz/fuzz_data_producer.h: the targets ask for integers in
 * a range, booleans and array picks, and every answer is decoded from the
 * fuzzer's input.  Numbers are taken from the END of the buffer (so that
 * a target that also wants raw bytes can take them from the front); once
 * the input is used up every request returns the low end of its range,
 * which makes every input, even an empty one, a valid program.
 *
 * Header-only (static inline) so that each target stays one translation
 * unit and the OSS-Fuzz build script needs no extra object.
 */
#ifndef FOLIOSIM_FUZZ_DATA_PRODUCER_H
#define FOLIOSIM_FUZZ_DATA_PRODUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fdp {
	const uint8_t *data;
	size_t size;
};

static inline struct fdp fdp_init(const uint8_t *data, size_t size)
{
	struct fdp p = { data, size };

	return p;
}

static inline size_t fdp_remaining(const struct fdp *p)
{
	return p->size;
}

static inline bool fdp_empty(const struct fdp *p)
{
	return p->size == 0;
}

/* A value in [min, max]: as few bytes as the range needs, big-endian from
 * the end, reduced modulo the range (a little bias is fine for fuzzing). */
static inline uint64_t fdp_u64_range(struct fdp *p, uint64_t min, uint64_t max)
{
	const uint64_t range = max - min;
	uint64_t v = 0;
	unsigned int bits = 0;

	if (min >= max)
		return min;
	while (bits < 64 && (range >> bits) != 0 && p->size) {
		v = (v << 8) | p->data[p->size - 1];
		p->size--;
		bits += 8;
	}
	if (range == UINT64_MAX)
		return min + v;
	return min + v % (range + 1);
}

static inline uint32_t fdp_u32_range(struct fdp *p, uint32_t min, uint32_t max)
{
	return (uint32_t)fdp_u64_range(p, min, max);
}

static inline bool fdp_bool(struct fdp *p)
{
	return fdp_u64_range(p, 0, 1) != 0;
}

/* True with probability about num/den; false once the input is used up
 * (the low end of the range), so that a short input does not turn every
 * rare event on. */
static inline bool fdp_chance(struct fdp *p, uint32_t num, uint32_t den)
{
	return fdp_u32_range(p, 0, den - 1) >= den - num;
}

/* An index into an array of n elements (n >= 1). */
static inline size_t fdp_pick(struct fdp *p, size_t n)
{
	return n ? (size_t)fdp_u64_range(p, 0, n - 1) : 0;
}

/* Picks one of the n values of an array: fdp_pick_u32(p, arr, n). */
static inline uint32_t fdp_pick_u32(struct fdp *p, const uint32_t *arr, size_t n)
{
	return arr[fdp_pick(p, n)];
}

/* Up to max raw bytes from the front; returns how many were given. */
static inline size_t fdp_bytes(struct fdp *p, size_t max, const uint8_t **out)
{
	size_t n = max < p->size ? max : p->size;

	*out = p->data;
	p->data += n;
	p->size -= n;
	return n;
}

#endif /* FOLIOSIM_FUZZ_DATA_PRODUCER_H */
