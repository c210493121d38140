/* SPDX-License-Identifier: GPL-2.0 */
/*
 * weave selftests: user memory behind a userfaultfd, whose pages stay
 * missing until the test serves them, so that a call that reads or writes
 * them blocks in the fault for as long as the test likes.  Kernel-mode
 * faults are handled too (no UFFD_USER_MODE_ONLY): the suites run as root.
 */
#ifndef _WEAVE_UFFD_H
#define _WEAVE_UFFD_H

#include <linux/userfaultfd.h>
#include <sys/syscall.h>

#include "weave_test.h"

/* Pages of user memory that fault into a userfaultfd. */
struct weave_uffd {
	int fd;			/* the userfaultfd */
	uint8_t *mem;		/* its pages, all missing at first */
	size_t len;
	size_t page;
};

/* Sets up @n pages behind a userfaultfd, failing the test without one. */
static inline void weave_uffd_open(struct __test_metadata *_metadata,
				   struct weave_uffd *u, size_t n)
{
	struct uffdio_register reg;
	struct uffdio_api api;

	u->page = sysconf(_SC_PAGESIZE);
	u->len = n * u->page;
	u->fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, u->fd) {
		TH_LOG("userfaultfd: %s (the test needs CONFIG_USERFAULTFD)",
		       strerror(errno));
	}
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	ASSERT_EQ(0, ioctl(u->fd, UFFDIO_API, &api));
	u->mem = mmap(NULL, u->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u->mem);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)u->mem;
	reg.range.len = u->len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(u->fd, UFFDIO_REGISTER, &reg));
}

/*
 * Waits up to @timeout_ms for a fault on the pages and returns its
 * address, or 0 if none came.
 */
static inline uint64_t weave_uffd_fault(struct weave_uffd *u, int timeout_ms)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return 0;
	if (read(u->fd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return msg.arg.pagefault.address;
}

/* Serves page @i with the page at @src, waking whoever waits for it. */
static inline int weave_uffd_serve(struct weave_uffd *u, size_t i,
				   const void *src)
{
	struct uffdio_copy copy;

	memset(&copy, 0, sizeof(copy));
	copy.dst = (uintptr_t)u->mem + i * u->page;
	copy.src = (uintptr_t)src;
	copy.len = u->page;
	return ioctl(u->fd, UFFDIO_COPY, &copy) ? -errno : 0;
}

/*
 * Closes the userfaultfd: faults blocked on it, and later ones, are then
 * served as on ordinary memory (zero pages).
 */
static inline void weave_uffd_close(struct weave_uffd *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

static inline void weave_uffd_free(struct weave_uffd *u)
{
	weave_uffd_close(u);
	if (u->mem && u->mem != MAP_FAILED)
		munmap(u->mem, u->len);
	u->mem = NULL;
}

#endif /* _WEAVE_UFFD_H */
