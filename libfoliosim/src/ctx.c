// SPDX-License-Identifier: MIT
/* Contexts (the back end picked by mode), the mm id allocator, mms, the
 * kernel facts callers may ask for (fsim_mode_has()) and names. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int fsim_arch_validate(const struct fsim_arch *arch)
{
	if (!arch || (arch->bits != 32 && arch->bits != 64))
		return -EINVAL;
	if (arch->page_shift < 10 || arch->page_shift > 16)
		return -EINVAL;
	if (arch->pmd_order < 1 || arch->pmd_order >= arch->pud_order ||
	    arch->pud_order > 30)
		return -EINVAL;
	return 0;
}

/* The back end of each mode: the one place that picks accounting rules. */
static const struct fsim_backend *const backends[FSIM_NR_MODES] = {
	[FSIM_MODE_LEGACY] = &fsim_backend_legacy,
	[FSIM_MODE_BASE] = &fsim_backend_base,
	[FSIM_MODE_RFC] = &fsim_backend_rfc,
};

int fsim_ctx_create(enum fsim_mode mode, const struct fsim_arch *arch,
		    struct fsim_ctx **out)
{
	struct fsim_arch a = arch ? *arch : FSIM_ARCH_X86_64;
	struct fsim_ctx *ctx;

	if ((unsigned int)mode >= FSIM_NR_MODES || !out)
		return refuse("no such mode, or no result pointer (NULL)", -EINVAL);
	if (fsim_arch_validate(&a))
		return refuse("arch: bits 32 or 64, page_shift 10..16, "
			      "1 <= pmd_order < pud_order <= 30", -EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->mode = mode;
	ctx->ops = backends[mode];
	ctx->arch = a;
	/* MM_ID_MAX = MM_ID_MASK: 31-bit ids on 64-bit, 15-bit on 32-bit */
	ctx->mm_id_max = (1u << mm_id_bits(&a)) - 1;
	fsim_spin_init(&ctx->ida_lock);
	fsim_spin_init(&ctx->list_lock);
	*out = ctx;
	return 0;
}

void fsim_ctx_destroy(struct fsim_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->files_destroy)
		ctx->files_destroy(ctx);
	while (ctx->folios) {
		struct fsim_folio *f = ctx->folios;

		ctx->folios = f->next;
		folio_destroy(f);
	}
	while (ctx->mms) {
		struct fsim_mm *mm = ctx->mms;

		ctx->mms = mm->next;
		free(mm);
	}
	free(ctx->ida_bits);
	free(ctx->ida_sparse);
	free(ctx);
}

enum fsim_mode fsim_ctx_mode(const struct fsim_ctx *ctx)
{
	return ctx ? ctx->mode : FSIM_NR_MODES;
}

const struct fsim_arch *fsim_ctx_arch(const struct fsim_ctx *ctx)
{
	return ctx ? &ctx->arch : NULL;
}

void fsim_ctx_set_sched_hook(struct fsim_ctx *ctx, fsim_sched_hook_t hook,
			     void *arg)
{
	if (!ctx)
		return;
	ctx->sched_hook = hook;
	ctx->sched_arg = arg;
}

void fsim_ctx_set_concurrent(struct fsim_ctx *ctx, bool concurrent)
{
	if (!ctx)
		return;
	ctx->concurrent = concurrent;
}

/* ------------------------------------------------------------------ */
/* The mm id allocator: ida_alloc_range(&mm_ida, MM_ID_MIN, MM_ID_MAX)   */
/* ------------------------------------------------------------------ */

/*
 * A bitmap for the ids below IDA_DENSE (what automatic allocation hands
 * out unless a million mms live at once) and a sorted array for explicit
 * ids above it, so that one mm asking for id 2^31 - 1 costs a few bytes.
 */
#define IDA_DENSE (1u << 20)

static bool ida_sparse_find(const struct fsim_ctx *ctx, unsigned int id, size_t *pos)
{
	size_t lo = 0, hi = ctx->ida_nsparse;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->ida_sparse[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return lo < ctx->ida_nsparse && ctx->ida_sparse[lo] == id;
}

static bool ida_test(const struct fsim_ctx *ctx, unsigned int id)
{
	size_t w = id / 64, pos;

	if (id >= IDA_DENSE)
		return ida_sparse_find(ctx, id, &pos);
	return w < ctx->ida_words && (ctx->ida_bits[w] >> (id % 64)) & 1;
}

static int ida_grow(struct fsim_ctx *ctx, unsigned int id)
{
	size_t words = id / 64 + 1, n = ctx->ida_words ? ctx->ida_words : 1;
	uint64_t *p;

	if (words <= ctx->ida_words)
		return 0;
	while (n < words)
		n *= 2;
	p = realloc(ctx->ida_bits, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + ctx->ida_words, 0, (n - ctx->ida_words) * sizeof(*p));
	if (!ctx->ida_words)
		p[0] = 1;	/* MM_ID_DUMMY is never handed out */
	ctx->ida_bits = p;
	ctx->ida_words = n;
	return 0;
}

static int ida_set(struct fsim_ctx *ctx, unsigned int id)
{
	size_t pos;
	unsigned int *p;
	int err;

	if (id < IDA_DENSE) {
		err = ida_grow(ctx, id);
		if (!err)
			ctx->ida_bits[id / 64] |= (uint64_t)1 << (id % 64);
		return err;
	}
	ida_sparse_find(ctx, id, &pos);
	p = realloc(ctx->ida_sparse, (ctx->ida_nsparse + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ctx->ida_sparse = p;
	memmove(p + pos + 1, p + pos, (ctx->ida_nsparse - pos) * sizeof(*p));
	p[pos] = id;
	ctx->ida_nsparse++;
	return 0;
}

static int ida_alloc(struct fsim_ctx *ctx, unsigned int want, unsigned int *id)
{
	unsigned int i;
	size_t w;
	int err;

	if (want) {
		if (want < MM_ID_MIN || want > ctx->mm_id_max)
			return refuse("mm id outside MM_ID_MIN..MM_ID_MAX", -EINVAL);
		if (ida_test(ctx, want))
			return refuse("mm id taken", -EINVAL);
		i = want;
	} else {
		/* Lowest free id from MM_ID_MIN: skip full words. */
		for (w = 0; w < ctx->ida_words && ctx->ida_bits[w] == UINT64_MAX; w++)
			;
		for (i = (unsigned int)(w * 64); i < MM_ID_MIN || ida_test(ctx, i); i++)
			;
		if (i > ctx->mm_id_max)
			return refuse("every mm id is taken", -ENOSPC);
	}
	err = ida_set(ctx, i);
	if (err)
		return err;
	*id = i;
	return 0;
}

static void ida_free(struct fsim_ctx *ctx, unsigned int id)
{
	size_t pos;

	if (id < IDA_DENSE) {
		ctx->ida_bits[id / 64] &= ~((uint64_t)1 << (id % 64));
	} else if (ida_sparse_find(ctx, id, &pos)) {
		memmove(ctx->ida_sparse + pos, ctx->ida_sparse + pos + 1,
			(ctx->ida_nsparse - pos - 1) * sizeof(*ctx->ida_sparse));
		ctx->ida_nsparse--;
	}
}

int fsim_mm_create(struct fsim_ctx *ctx, unsigned int id, struct fsim_mm **out)
{
	struct fsim_mm *mm;
	int err;

	if (!ctx || !out)
		return refuse("no context or no result pointer (NULL)", -EINVAL);
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	fsim_spin_lock(&ctx->ida_lock);
	err = ida_alloc(ctx, id, &mm->id);
	fsim_spin_unlock(&ctx->ida_lock);
	if (err) {
		free(mm);
		return err;
	}
	mm->ctx = ctx;
	fsim_spin_lock(&ctx->list_lock);
	mm->next = ctx->mms;
	if (ctx->mms)
		ctx->mms->prev = mm;
	ctx->mms = mm;
	fsim_spin_unlock(&ctx->list_lock);
	*out = mm;
	return 0;
}

/* __mmdrop() -> mm_free_id() */
int fsim_mm_destroy(struct fsim_mm *mm)
{
	struct fsim_ctx *ctx;

	if (!mm)
		return refuse("no mm (NULL)", -EINVAL);
	if (atomic_load(&mm->nr_mapped))
		return refuse("mmdrop of an mm that still maps folios", -EBUSY);
	ctx = mm->ctx;
	fsim_spin_lock(&ctx->ida_lock);
	ida_free(ctx, mm->id);
	fsim_spin_unlock(&ctx->ida_lock);
	fsim_spin_lock(&ctx->list_lock);
	if (mm->prev)
		mm->prev->next = mm->next;
	else
		ctx->mms = mm->next;
	if (mm->next)
		mm->next->prev = mm->prev;
	fsim_spin_unlock(&ctx->list_lock);
	free(mm);
	return 0;
}

unsigned int fsim_mm_id(const struct fsim_mm *mm)
{
	return mm ? mm->id : 0;
}

bool fsim_mm_has_pinned(const struct fsim_mm *mm)
{
	return mm && atomic_load(&((struct fsim_mm *)mm)->has_pinned);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

const struct fsim_backend *backend_of(enum fsim_mode mode)
{
	return (unsigned int)mode < FSIM_NR_MODES ? backends[mode] : NULL;
}

const char *fsim_mode_name(enum fsim_mode mode)
{
	return (unsigned int)mode < FSIM_NR_MODES ? backends[mode]->name : "?";
}

/* Kernel history: 6.12, the RFC's base tree, the series. */
enum fsim_mode fsim_mode_at(unsigned int i)
{
	static const enum fsim_mode history[FSIM_NR_MODES] = {
		FSIM_MODE_LEGACY, FSIM_MODE_BASE, FSIM_MODE_RFC };

	return i < FSIM_NR_MODES ? history[i] : FSIM_NR_MODES;
}

const char *fsim_mode_label(enum fsim_mode mode)
{
	return (unsigned int)mode < FSIM_NR_MODES ? backends[mode]->label : "?";
}

/* The kernel facts callers may ask about, read off each back end's table:
 * the one place outside the back ends that knows which kernel has what. */
bool fsim_mode_has(enum fsim_mode mode, enum fsim_feature feature)
{
	const struct fsim_backend *b = backend_of(mode);

	if (!b)
		return false;
	switch (feature) {
	case FSIM_HAS_PAGE_MAPCOUNT:
		return b->precise_page_mapcount != NULL;
	case FSIM_HAS_MM_SLOTS:
		return b->has_mm_slots;
	case FSIM_HAS_PRECISE_KPAGECOUNT:
		return b->precise_kpagecount;
	case FSIM_HAS_ARBITRARY_MAPPINGS:
		return b->arbitrary_mappings;
	case FSIM_HAS_DETECT_PART:
		return b->detect_part;
	case FSIM_HAS_COW_REUSE_LARGE_ANON:
		return b->cow_reuses_large_anon;
	case FSIM_NR_FEATURES:
		break;
	}
	return false;
}

const char *fsim_feature_name(enum fsim_feature feature)
{
	static const char *const names[FSIM_NR_FEATURES] = {
		[FSIM_HAS_PAGE_MAPCOUNT] = "page-mapcount",
		[FSIM_HAS_MM_SLOTS] = "mm-slots",
		[FSIM_HAS_PRECISE_KPAGECOUNT] = "precise-kpagecount",
		[FSIM_HAS_ARBITRARY_MAPPINGS] = "arbitrary-mappings",
		[FSIM_HAS_DETECT_PART] = "detect-part",
		[FSIM_HAS_COW_REUSE_LARGE_ANON] = "cow-reuse-large-anon",
	};

	return (unsigned int)feature < FSIM_NR_FEATURES ? names[feature] : "?";
}

int fsim_mode_from_name(const char *name, enum fsim_mode *out)
{
	unsigned int m;

	for (m = 0; name && m < FSIM_NR_MODES; m++) {
		if (!strcmp(name, backends[m]->name)) {
			if (out)
				*out = (enum fsim_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *fsim_level_name(enum fsim_level level)
{
	static const char *const names[] = { "pte", "pmd", "pud" };

	return (unsigned int)level < 3 ? names[level] : "?";
}

const char *fsim_kind_name(enum fsim_kind kind)
{
	static const char *const names[] = { "anon", "file", "shmem" };

	return (unsigned int)kind < 3 ? names[kind] : "?";
}

const char *fsim_stat_name(enum fsim_stat stat)
{
	static const char *const names[] = {
		"anon_mapped", "file_mapped", "anon_thps", "file_pmdmapped",
		"shmem_pmdmapped", "shmem",
	};

	return (unsigned int)stat < FSIM_NR_STATS ? names[stat] : "?";
}

const char *fsim_errname(int err)
{
	switch (err) {
	case 0:
		return "OK";
	case -EINVAL:
		return "EINVAL";
	case -EBUSY:
		return "EBUSY";
	case -EOVERFLOW:
		return "EOVERFLOW";
	case -ENOSPC:
		return "ENOSPC";
	case -ENOMEM:
		return "ENOMEM";
	case -EFAULT:
		return "EFAULT";
	case -EEXIST:
		return "EEXIST";
	case -EAGAIN:
		return "EAGAIN";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP";
	default:
		return "E?";
	}
}
