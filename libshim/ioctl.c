// SPDX-License-Identifier: MIT
/*
 * libweave: the ioctl entry point of the inline helpers, and the version.
 *
 * Building tasks, enqueue and flush are static inline in weave.h, so that
 * they use the caller's struct sizes; they issue their ioctls here.
 */
#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_ioctl(int fd, unsigned long request, void *arg)
{
	return shim_ioctl(fd, request, arg);
}

WEAVE_PUBLIC unsigned int weave_version(void)
{
	return WEAVE_VERSION(WEAVE_VERSION_MAJOR, WEAVE_VERSION_MINOR,
			     WEAVE_VERSION_PATCH);
}
