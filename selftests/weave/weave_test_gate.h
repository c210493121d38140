/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the weave kselftest suites: gates, fences of sw_sync or of a
 * vgem buffer that hold weave's work until a test signals them.
 *
 * Part of weave_test.h, which includes it at its end: suites include
 * weave_test.h only.
 */
#ifndef _WEAVE_TEST_GATE_H_
#define _WEAVE_TEST_GATE_H_

/* --- gates ---------------------------------------------------------------- */

/*
 * vgem's uAPI, from the kernel's include/uapi/drm/vgem_drm.h, which
 * libdrm's headers do not ship: a fence attached to a vgem buffer, which
 * only DRM_IOCTL_VGEM_FENCE_SIGNAL (or vgem's own timer, below) signals.
 */
struct weave_test_vgem_fence_attach {
	__u32 handle;		/* the buffer */
	__u32 flags;		/* WEAVE_TEST_VGEM_FENCE_WRITE: a write fence */
	__u32 out_fence;	/* out: the fence, for FENCE_SIGNAL */
	__u32 pad;
};

struct weave_test_vgem_fence_signal {
	__u32 fence;
	__u32 flags;
};

#define WEAVE_TEST_VGEM_FENCE_WRITE	0x1
#define WEAVE_TEST_VGEM_FENCE_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct weave_test_vgem_fence_attach)
#define WEAVE_TEST_VGEM_FENCE_SIGNAL \
	DRM_IOW(DRM_COMMAND_BASE + 0x2, struct weave_test_vgem_fence_signal)

/*
 * sw_sync's uAPI, which the kernel keeps in drivers/dma-buf/sw_sync.c and
 * no header (CONFIG_SW_SYNC, in debugfs): a timeline per open file, at 0;
 * CREATE_FENCE makes the fence of a point of it, as a sync_file, and INC
 * advances it, signalling the points it reaches.  Nothing else signals
 * them, but closing the timeline (with -ENOENT).
 */
#define WEAVE_TEST_SW_SYNC_PATH		"/sys/kernel/debug/sync/sw_sync"

struct weave_test_sw_sync_create_fence {
	__u32 value;		/* the point */
	char name[32];
	__s32 fence;		/* out: the sync_file */
};

#define WEAVE_TEST_SW_SYNC_IOC_CREATE_FENCE \
	_IOWR('W', 0, struct weave_test_sw_sync_create_fence)
#define WEAVE_TEST_SW_SYNC_IOC_INC	_IOW('W', 1, __u32)

/*
 * vgem signals a fence by itself once it is this old (VGEM_FENCE_TIMEOUT,
 * 10 * HZ, in drivers/gpu/drm/vgem/vgem_fence.c of 6.1 and 6.12), so that
 * a client that forgets one cannot hang the drivers waiting for it.
 */
#define WEAVE_TEST_VGEM_EXPIRY_NS	(10 * WEAVE_TEST_SEC)

/*
 * Opens vgem's primary node (vgem makes its buffers with the dumb-buffer
 * ioctl, which render nodes do not allow); fails the test, saying why, if
 * there is none: the suites need vgem.ko loaded, as the VM lane does.
 */
static inline int weave_test_vgem_open(struct __test_metadata *_metadata)
{
	char path[sizeof(DRM_DIR_NAME) + 256];
	drmVersionPtr version;
	struct dirent *entry;
	int fd, found = -1;
	DIR *dir;

	dir = opendir(DRM_DIR_NAME);
	while (dir && found < 0 && (entry = readdir(dir))) {
		if (strncmp(entry->d_name, DRM_PRIMARY_MINOR_NAME,
			    strlen(DRM_PRIMARY_MINOR_NAME)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", DRM_DIR_NAME,
			 entry->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		version = drmGetVersion(fd);
		if (version && version->name && !strcmp(version->name, "vgem"))
			found = fd;
		else
			close(fd);
		if (version)
			drmFreeVersion(version);
	}
	if (dir)
		closedir(dir);
	ASSERT_LE(0, found) {
		TH_LOG("no vgem device in %s: the gates need vgem.ko loaded (CONFIG_DRM_VGEM)",
		       DRM_DIR_NAME);
	}
	return found;
}

/*
 * A gate: a fence that only the test signals, for tests that must see
 * work held back while they check something, imported into @syncobj of
 * the test's file.  Its fence is, where the kernel has sw_sync
 * (WEAVE_TEST_SW_SYNC_PATH: CONFIG_SW_SYNC, debugfs mounted; the debug
 * kernel of the VM lane), point 1 of a sw_sync timeline of its own, which
 * nothing but the test signals.  Elsewhere (Debian's kernels have no
 * sw_sync), or if WEAVE_TEST_GATE=vgem is set in the environment, it is
 * a write fence of a vgem buffer on a vgem file of its own, taken from
 * the buffer's dma-buf as a sync_file (DMA_BUF_IOCTL_EXPORT_SYNC_FILE,
 * Linux 6.0 on).
 *
 * Set a gate up with weave_test_gate_open() and gate the work on it with
 * weave_sync(gate.syncobj, 0); check that the work is held; call
 * weave_test_gate_pending() to prove the gate still held after the checks;
 * then weave_test_gate_wait() signals it and waits for it, and the work
 * runs.  No time passing opens a sw_sync gate.  A vgem gate has one
 * exception: vgem signals a fence by itself WEAVE_TEST_VGEM_EXPIRY_NS
 * (10 s) after attaching it.  A gate that expired so fails
 * weave_test_gate_pending() and the signal, each saying so.  So the window
 * of a gate, from weave_test_gate_open() to its signal, holds only the few
 * calls the test checks, all slow set-up done before it; a test whose
 * window cannot be made short asks weave_test_gate_expired() and repeats
 * its scenario (weave_test_gate_again()) rather than fail.
 */
struct weave_test_gate {
	int fd;			/* the sw_sync timeline, or vgem's node */
	bool vgem;		/* a vgem fence, which expires */
	uint32_t fence;		/* the vgem fence, in @fd */
	uint32_t syncobj;	/* its fence, in the test's file */
	int64_t attached;	/* CLOCK_MONOTONIC ns just before it was made */
	int64_t signalled;	/* ns just before the test signalled it, or 0 */
	bool expired;		/* vgem had signalled it by then */
};

/* How many times a test makes a scenario whose vgem gate expired. */
#define WEAVE_TEST_GATE_TRIES	3

/* How long the gate has existed, in ms, to say why it opened. */
static inline long long weave_test_gate_age_ms(const struct weave_test_gate *g)
{
	return (weave_test_now() - g->attached) / 1000000;
}

/* What the gate is, for messages. */
static inline const char *weave_test_gate_kind(const struct weave_test_gate *g)
{
	return g->vgem ? "vgem" : "sw_sync";
}

/*
 * Whether the gate opened without the test: a vgem gate that vgem
 * expired, before the test signalled it or when it did.  Does not fail
 * the test, and does not signal the gate.
 */
static inline bool weave_test_gate_expired(int fd,
					   const struct weave_test_gate *g)
{
	uint32_t obj = g->syncobj;

	if (g->signalled)
		return g->expired;
	return !drmSyncobjWait(fd, &obj, 1, 0, 0, NULL);
}

/*
 * After try @tries (from 1) of a scenario whose gate @g, of @fd, expired:
 * says so, fails the test once it has made WEAVE_TEST_GATE_TRIES tries,
 * else drops the gate (its syncobj, its file) for the test to make the
 * scenario again.
 */
static inline void weave_test_gate_again(struct __test_metadata *_metadata,
					 int fd, struct weave_test_gate *g,
					 int tries)
{
	ASSERT_GT(WEAVE_TEST_GATE_TRIES, tries) {
		TH_LOG("the %s gate opened by itself in each of %d tries, the last within %lld ms: vgem expires its fences after %lld ms",
		       weave_test_gate_kind(g), tries,
		       weave_test_gate_age_ms(g),
		       WEAVE_TEST_VGEM_EXPIRY_NS / 1000000);
	}
	TH_LOG("the %s gate opened by itself within %lld ms (try %d of %d): again",
	       weave_test_gate_kind(g), weave_test_gate_age_ms(g), tries,
	       WEAVE_TEST_GATE_TRIES);
	drmSyncobjDestroy(fd, g->syncobj);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

/*
 * Fails the test, saying why, if the gate has already signalled: checks
 * made before this call all saw it held.
 */
static inline void weave_test_gate_pending(struct __test_metadata *_metadata,
					   int fd,
					   const struct weave_test_gate *g)
{
	uint32_t obj = g->syncobj;
	int ret;

	ASSERT_EQ(0, g->signalled) TH_LOG("the test signalled the gate already");
	ret = drmSyncobjWait(fd, &obj, 1, 0, 0, NULL) ? -errno : 0;
	ASSERT_EQ(-ETIME, ret) {
		if (ret)
			TH_LOG("waiting for the gate: %s", strerror(-ret));
		else if (g->vgem)
			TH_LOG("the gate opened by itself within %lld ms: vgem expires its fences after %lld ms, so the checks above prove nothing",
			       weave_test_gate_age_ms(g),
			       WEAVE_TEST_VGEM_EXPIRY_NS / 1000000);
		else
			TH_LOG("the sw_sync gate signalled without the test, after %lld ms",
			       weave_test_gate_age_ms(g));
	}
}

/* Sets up @g as a sw_sync gate; returns false, doing nothing, if none. */
static inline bool weave_test_gate_sw_sync(struct __test_metadata *_metadata,
					   struct weave_test_gate *g, int fd)
{
	struct weave_test_sw_sync_create_fence args;
	const char *want = getenv("WEAVE_TEST_GATE");
	int ret;

	if (want && !strcmp(want, "vgem"))
		return false;
	g->fd = open(WEAVE_TEST_SW_SYNC_PATH, O_RDWR | O_CLOEXEC);
	if (g->fd < 0)
		return false;
	memset(&args, 0, sizeof(args));
	args.value = 1;
	snprintf(args.name, sizeof(args.name), "weave-test-gate");
	args.fence = -1;
	g->attached = weave_test_now();
	ASSERT_EQ(0, ioctl(g->fd, WEAVE_TEST_SW_SYNC_IOC_CREATE_FENCE,
			   &args)) {
		TH_LOG("SW_SYNC_IOC_CREATE_FENCE: %s", strerror(errno));
	}
	g->syncobj = weave_test_syncobj(_metadata, fd);
	ret = drmSyncobjImportSyncFile(fd, g->syncobj, args.fence) ? -errno : 0;
	close(args.fence);
	ASSERT_EQ(0, ret);
	return true;
}

/* Sets up @g as a vgem gate. */
static inline void weave_test_gate_vgem(struct __test_metadata *_metadata,
					struct weave_test_gate *g, int fd)
{
	struct weave_test_vgem_fence_attach attach;
	struct dma_buf_export_sync_file exp;
	struct drm_mode_destroy_dumb destroy;
	struct drm_mode_create_dumb dumb;
	int dmabuf = -1, ret;

	g->vgem = true;
	g->fd = weave_test_vgem_open(_metadata);
	/* A page: 1024 pixels of 32 bits. */
	memset(&dumb, 0, sizeof(dumb));
	dumb.width = 1024;
	dumb.height = 1;
	dumb.bpp = 32;
	ASSERT_EQ(0, weave_test_ioctl(g->fd, DRM_IOCTL_MODE_CREATE_DUMB,
				      &dumb));
	memset(&attach, 0, sizeof(attach));
	attach.handle = dumb.handle;
	attach.flags = WEAVE_TEST_VGEM_FENCE_WRITE;
	g->attached = weave_test_now();
	ASSERT_EQ(0, weave_test_ioctl(g->fd, WEAVE_TEST_VGEM_FENCE_ATTACH,
				      &attach));
	ASSERT_NE(0u, attach.out_fence);
	g->fence = attach.out_fence;

	/* What a reader of the buffer waits for: its write fence. */
	ASSERT_EQ(0, drmPrimeHandleToFD(g->fd, dumb.handle, DRM_CLOEXEC,
					&dmabuf));
	memset(&exp, 0, sizeof(exp));
	exp.flags = DMA_BUF_SYNC_READ;
	exp.fd = -1;
	ret = ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp) ? -errno : 0;
	close(dmabuf);
	ASSERT_EQ(0, ret) {
		TH_LOG("DMA_BUF_IOCTL_EXPORT_SYNC_FILE: %s (the gates need Linux 6.0 or later)",
		       strerror(-ret));
	}
	g->syncobj = weave_test_syncobj(_metadata, fd);
	ret = drmSyncobjImportSyncFile(fd, g->syncobj, exp.fd) ? -errno : 0;
	close(exp.fd);
	ASSERT_EQ(0, ret);

	/* The fence lives in vgem's file, not in the buffer. */
	memset(&destroy, 0, sizeof(destroy));
	destroy.handle = dumb.handle;
	ASSERT_EQ(0, weave_test_ioctl(g->fd, DRM_IOCTL_MODE_DESTROY_DUMB,
				      &destroy));
}

/*
 * Sets up a gate, shut, whose fence is in @g->syncobj of @fd: of sw_sync
 * if the kernel has it, else of vgem.
 */
static inline void weave_test_gate_open(struct __test_metadata *_metadata,
					struct weave_test_gate *g, int fd)
{
	memset(g, 0, sizeof(*g));
	if (!weave_test_gate_sw_sync(_metadata, g, fd))
		weave_test_gate_vgem(_metadata, g, fd);
	weave_test_gate_pending(_metadata, fd, g);
}

/*
 * Signals the gate and returns 0, or a negative errno: -ETIMEDOUT if vgem
 * had expired the fence already.  Does not fail the test, so that another
 * thread may call it; weave_test_gate_signal() does.
 */
static inline int weave_test_gate_try_signal(struct weave_test_gate *g)
{
	struct weave_test_vgem_fence_signal sig;
	__u32 one = 1;
	int ret;

	g->signalled = weave_test_now();
	if (!g->vgem)
		return ioctl(g->fd, WEAVE_TEST_SW_SYNC_IOC_INC, &one) ?
		       -errno : 0;
	memset(&sig, 0, sizeof(sig));
	sig.fence = g->fence;
	ret = weave_test_ioctl(g->fd, WEAVE_TEST_VGEM_FENCE_SIGNAL, &sig);
	g->expired = ret == -ETIMEDOUT;
	return ret;
}

/* Signals the gate, failing the test if it had opened by itself. */
static inline void weave_test_gate_signal(struct __test_metadata *_metadata,
					  struct weave_test_gate *g)
{
	int ret;

	ASSERT_EQ(0, g->signalled) TH_LOG("the test signalled the gate already");
	ret = weave_test_gate_try_signal(g);
	ASSERT_EQ(0, ret) {
		if (g->vgem && ret == -ETIMEDOUT)
			TH_LOG("the gate opened by itself within %lld ms: vgem expires its fences after %lld ms, so what the test saw held may have run early",
			       weave_test_gate_age_ms(g),
			       WEAVE_TEST_VGEM_EXPIRY_NS / 1000000);
		else
			TH_LOG("signalling the %s gate: %s",
			       weave_test_gate_kind(g), strerror(-ret));
	}
}

/*
 * Closes the gate's own file, without waiting for anything in the test's
 * file (which may be gone).  The gate signals, without error, if it had
 * not: vgem signals the fences a file still holds as it closes, and a
 * sw_sync gate is signalled first, as closing its timeline would fail it
 * with -ENOENT.  (A child process that shares the gate must not call
 * this, lest it open the gate.)
 */
static inline void weave_test_gate_close(struct weave_test_gate *g)
{
	if (g->fd >= 0 && !g->vgem && !g->signalled)
		weave_test_gate_try_signal(g);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

/*
 * Signals the gate, unless the test did, and waits for its fence to signal
 * in the test's file, without error; then closes the gate.
 */
static inline void weave_test_gate_wait(struct __test_metadata *_metadata,
					int fd, struct weave_test_gate *g)
{
	uint32_t obj = g->syncobj;

	if (!g->signalled)
		weave_test_gate_signal(_metadata, g);
	ASSERT_EQ(0, drmSyncobjWait(fd, &obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, fd, obj, 0));
	drmSyncobjDestroy(fd, g->syncobj);
	weave_test_gate_close(g);
}

/*
 * One NOOP on each of @a and @b, flushed together by one flush all, then
 * waited for.  Returns the jobs that made: 1 if the two slots were
 * interleaved, 2 if each ran on its own backend stream.
 */
static inline uint64_t weave_test_flush_pair(struct __test_metadata *_metadata,
					     int fd, uint32_t a, uint32_t b)
{
	struct weave_test_batch bt;
	uint64_t before = weave_test_jobs(_metadata, fd);

	weave_test_batch_init(&bt);
	weave_test_noop(&bt);
	weave_test_enqueue(_metadata, fd, a, &bt);
	weave_test_noop(&bt);
	weave_test_enqueue(_metadata, fd, b, &bt);
	ASSERT_EQ(0, weave_flush_all(fd, NULL));
	weave_test_wait(_metadata, fd, a);
	weave_test_wait(_metadata, fd, b);
	return weave_test_jobs(_metadata, fd) - before;
}

/*
 * Enqueues one NOOP on @stream of @fd gated on @g (open it first), so
 * that the slot holds work until the gate opens.  Returns 0 or a negative
 * errno, without failing the test, for a child process to call.
 */
static inline int weave_test_gated_noop(const struct weave_test_gate *g,
					int fd, uint32_t stream)
{
	struct drm_weave_sync in = weave_sync(g->syncobj, 0);
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	return weave_enqueue(fd, stream, b.task, b.n, &in, 1, NULL);
}

#endif /* _WEAVE_TEST_GATE_H_ */
