// SPDX-License-Identifier: GPL-2.0
/*
 * kharness: customised, ThreadSanitizer builds only (-DKH_TSAN).  The
 * generic bitops that overlay-tsan/asm/bitops.h takes in place of x86's
 * count bits through lib/hweight.c, which the harness does not link.
 */

unsigned int __sw_hweight32(unsigned int w)
{
	return __builtin_popcount(w);
}

unsigned int __sw_hweight16(unsigned int w)
{
	return __builtin_popcount(w & 0xffff);
}

unsigned int __sw_hweight8(unsigned int w)
{
	return __builtin_popcount(w & 0xff);
}

unsigned long __sw_hweight64(__u64 w)
{
	return __builtin_popcountll(w);
}
