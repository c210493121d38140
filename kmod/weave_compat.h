/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the differences between the kernels weave builds against.
 */
#ifndef _WEAVE_COMPAT_H_
#define _WEAVE_COMPAT_H_

#include <drm/drm_prime.h>

/*
 * Generated into the per-kernel build folder by
 * "scripts/kernel-probe.sh KDIR > kmod/weave_probe.h".
 */
#include "weave_probe.h"

/**
 * DOC: kernel compatibility
 *
 * weave builds against Debian 12's 6.1 and the 6.12 LTS kernel.  Every
 * difference between the two lives in this header and nowhere else, and
 * each one is decided by a WEAVE_HAVE_* probe that scripts/kernel-probe.sh
 * takes from the kernel's headers at build time, never by the kernel
 * version: distributions backport API changes.
 *
 * Current differences:
 *
 * - &drm_driver.gem_prime_mmap exists before 6.6 and is required there for
 *   mmap() of an exported dma-buf; since 6.6 the core always uses
 *   drm_gem_prime_mmap().
 * - &drm_driver.prime_handle_to_fd and &drm_driver.prime_fd_to_handle are
 *   required before 6.6; since then the core falls back to the same GEM
 *   helpers when they are unset.  weave sets them whenever they exist,
 *   which is correct under both rules.
 */

#ifdef WEAVE_HAVE_DRIVER_PRIME_HANDLE_TO_FD
#define WEAVE_COMPAT_PRIME_FD_OPS \
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd, \
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
#else
#define WEAVE_COMPAT_PRIME_FD_OPS
#endif

#ifdef WEAVE_HAVE_DRIVER_GEM_PRIME_MMAP
#define WEAVE_COMPAT_PRIME_MMAP_OPS \
	.gem_prime_mmap = drm_gem_prime_mmap,
#else
#define WEAVE_COMPAT_PRIME_MMAP_OPS
#endif

#endif /* _WEAVE_COMPAT_H_ */
