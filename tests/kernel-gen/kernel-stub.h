/* SPDX-License-Identifier: MIT */
/*
 * The few kernel types the header of `foliosim kunit-gen` uses, for compiling
 * it on the host (the ctest kunit-gen-table).  In the kernel they come from
 * <linux/types.h>.
 */
#ifndef FOLIOSIM_KERNEL_STUB_H
#define FOLIOSIM_KERNEL_STUB_H

#include <stddef.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed int s32;
typedef signed long long s64;

#endif
