// SPDX-License-Identifier: MIT
/*
 * Why the calling thread's last call was refused (fsim_last_refusal()):
 * a file of its own, below every other, since every layer refuses.
 */
#include "internal.h"

static _Thread_local const char *last_refusal = "";

int refuse(const char *why, int err)
{
	last_refusal = why;
	return err;
}

const char *fsim_last_refusal(void)
{
	return last_refusal;
}
