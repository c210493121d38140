/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/container_of.h>. */
#ifndef _WEAVE_TEST_LINUX_CONTAINER_OF_H
#define _WEAVE_TEST_LINUX_CONTAINER_OF_H

#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
