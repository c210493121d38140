/* SPDX-License-Identifier: MIT */
/*
 * libweave internals shared by its source files.  Not installed.
 */
#ifndef _WEAVE_PRIVATE_H_
#define _WEAVE_PRIVATE_H_

#include <errno.h>

#include <xf86drm.h>

/*
 * Marks the definition of a public function.  The library is built with
 * -fvisibility=hidden, and libweave.map then fixes which of the visible
 * symbols make up the ABI and at which version.
 */
#define WEAVE_PUBLIC	__attribute__((visibility("default")))

/*
 * drmIoctl() restarts on EINTR and EAGAIN and returns -1 with errno set;
 * the library's convention is a negative errno instead.
 */
static inline int shim_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

/* The same convention for libc calls that return -1 and set errno. */
static inline int shim_errno(int ret)
{
	return ret < 0 ? -errno : ret;
}

#endif /* _WEAVE_PRIVATE_H_ */
