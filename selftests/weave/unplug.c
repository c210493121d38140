// SPDX-License-Identifier: GPL-2.0
/*
 * Hot-unplug: a weave device unbound from its platform driver while files
 * are open and work is in flight, then bound again.
 *
 * After the unbind every ioctl on an old file fails with -ENODEV, work not
 * yet completed is cancelled and its fences signal with -ENODEV, a mapping
 * made through the node gets SIGBUS, a dma-buf exported before stays
 * usable, and closing the files releases everything: weave.ko's reference
 * count comes back to what it was.  After the bind a new open works.
 *
 * A call stuck in a fault of its user memory (a userfaultfd page never
 * served) holds nothing the unbind waits for: the unbind is prompt, and
 * the call, once its page comes, fails with -ENODEV.
 *
 * Every test leaves the device bound, for the suites that follow.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "weave_test.h"
#include "weave_uffd.h"

#define DRIVER_DIR	"/sys/bus/platform/drivers/weave"

/* Streams and jobs per stream of the load the unbind meets. */
#define LOAD_STREAMS	4
#define LOAD_JOBS	4

/* Unbind and bind cycles. */
#define CYCLES		10

/* The platform device behind @fd's node ("weave.0") into @name. */
static void node_device(struct __test_metadata *_metadata, int fd,
			char *name, size_t len)
{
	char path[64], link[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	ASSERT_EQ(0, fstat(fd, &st));
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	ASSERT_LT(strlen(base), len);
	strcpy(name, base);
}

/* Writes @dev to the driver's @attr (bind or unbind): 0 or -errno. */
static int driver_write(const char *attr, const char *dev)
{
	char path[64];
	ssize_t n;
	int fd, ret;

	snprintf(path, sizeof(path), DRIVER_DIR "/%s", attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, dev, strlen(dev));
	ret = n < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Whether @dev is bound to weave's driver. */
static int is_bound(const char *dev)
{
	char path[64];

	snprintf(path, sizeof(path), DRIVER_DIR "/%s", dev);
	return !access(path, F_OK);
}

static void unbind(struct __test_metadata *_metadata, const char *dev)
{
	ASSERT_EQ(0, driver_write("unbind", dev));
	ASSERT_FALSE(is_bound(dev));
}

static void bind(struct __test_metadata *_metadata, const char *dev)
{
	ASSERT_EQ(0, driver_write("bind", dev));
	ASSERT_TRUE(is_bound(dev));
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* 1 if reading (or writing, if @write) @p raises SIGBUS, 0 if it works. */
static int access_sigbus(volatile uint32_t *p, int write)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1)) {
		sigaction(SIGBUS, &old, NULL);
		return 1;
	}
	if (write)
		*p = 0x12345678u;
	else
		(void)*p;
	sigaction(SIGBUS, &old, NULL);
	return 0;
}

/*
 * The fence of @obj as a sync_file: after the unbind the syncobj ioctls of
 * the old file fail, so fences are watched through sync_files taken before.
 */
static int export_fence(struct __test_metadata *_metadata, int fd,
			uint32_t obj)
{
	int sfd = -1;

	ASSERT_EQ(0, drmSyncobjExportSyncFile(fd, obj, &sfd));
	ASSERT_LE(0, sfd);
	return sfd;
}

/*
 * Polls sync_file @sfd for up to @timeout_ms and returns its status then:
 * 1 signalled, 0 pending, a negative errno if it signalled with that error.
 */
static int fence_peek(struct __test_metadata *_metadata, int sfd,
		      int timeout_ms)
{
	struct sync_file_info info;
	struct pollfd pfd;
	int ret;

	pfd.fd = sfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, ioctl(sfd, SYNC_IOC_FILE_INFO, &info));
	ASSERT_LE(0, ret);
	return info.status;
}

/* fence_peek(), then closes the sync_file. */
static int fence_status(struct __test_metadata *_metadata, int sfd,
			int timeout_ms)
{
	int status = fence_peek(_metadata, sfd, timeout_ms);

	close(sfd);
	return status;
}

/*
 * Proves a fresh file of the device works: fills a buffer through a job
 * and reads the pattern back through a mapping.
 */
static void check_new_open(struct __test_metadata *_metadata)
{
	struct weave_test_batch b;
	uint32_t stream, bo;
	uint64_t page;
	int fd;

	fd = weave_test_open(_metadata);
	page = weave_test_info(_metadata, fd).page_size;
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd, page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, page, 0xc0ffee00u);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
	weave_test_expect_words(_metadata, fd, bo, page, 0xc0ffee00u);
	close(fd);
}

FIXTURE(unplug) {
	long base;		/* weave.ko's references before the test */
	char dev[32];		/* the platform device, "weave.0" */
	WEAVE_TEST_FILE_FIELDS;
};

FIXTURE_SETUP(unplug)
{
	self->base = weave_test_settled_refs();
	ASSERT_LE(0, self->base);
	WEAVE_TEST_FILE_SETUP();
	node_device(_metadata, self->fd, self->dev, sizeof(self->dev));
	ASSERT_TRUE(is_bound(self->dev)) {
		TH_LOG("%s, the device of the node, is not bound to weave's driver",
		       self->dev);
	}
}

FIXTURE_TEARDOWN(unplug)
{
	if (self->fd >= 0)
		close(self->fd);
	if (!is_bound(self->dev))
		driver_write("bind", self->dev);
}

/*
 * Closes the test's file, which must free all weave.ko held, binds the
 * device again and checks a new file works, holding nothing after.
 */
static void close_and_rebind(struct __test_metadata *_metadata,
			     FIXTURE_DATA(unplug) *self)
{
	close(self->fd);
	self->fd = -1;
	weave_test_await_refs(_metadata, self->base);

	bind(_metadata, self->dev);
	check_new_open(_metadata);
	weave_test_await_refs(_metadata, self->base);
}

/* One call of every ioctl a file offers, each of which must fail. */
static void expect_all_enodev(struct __test_metadata *_metadata, int fd,
			      uint32_t stream, uint32_t bo, uint32_t syncobj,
			      int dmabuf)
{
	union {
		struct drm_version version;
		struct drm_get_cap cap;
		struct drm_gem_close gem_close;
		struct drm_prime_handle prime;
		struct drm_syncobj_create sc;
		struct drm_syncobj_destroy sd;
		struct drm_syncobj_handle sh;
		struct drm_syncobj_wait sw;
		struct drm_syncobj_array sa;
		struct drm_syncobj_timeline_array sta;
		struct drm_syncobj_transfer st;
		struct drm_weave_query q;
		struct drm_weave_bo_create bc;
		struct drm_weave_bo_mmap_offset mo;
		struct drm_weave_stream_create sc2;
		struct drm_weave_stream_destroy sd2;
		struct drm_weave_enqueue e;
		struct drm_weave_flush f;
		struct drm_weave_stream_isolate i;
		struct drm_weave_wait w;
		struct drm_weave_stream_query sq;
		struct drm_weave_set_param p;
		struct drm_weave_check ck;
		struct drm_weave_read rd;
		struct drm_weave_capture cp;
		struct drm_weave_replay rp;
		struct drm_weave_graph_destroy gd;
		uint8_t raw[256];
	} a;
	struct drm_weave_check_range range = weave_check_range(bo, 0, 4);
	struct drm_weave_device_info info;
	struct drm_weave_task task;
	uint32_t h = syncobj, word;

#define EXPECT_ENODEV(cmd, setup) do {					\
		memset(&a, 0, sizeof(a));				\
		setup;							\
		EXPECT_EQ(-ENODEV, weave_test_ioctl(fd, cmd, &a)) {	\
			TH_LOG("%s", #cmd);				\
		}							\
	} while (0)

	weave_task_launch(&task, DRM_WEAVE_KERNEL_NOOP, NULL, 0, NULL, 0);

	EXPECT_ENODEV(DRM_IOCTL_WEAVE_QUERY,
		      (a.q.type = DRM_WEAVE_QUERY_DEVICE_INFO,
		       a.q.size = sizeof(info),
		       a.q.pointer = (uintptr_t)&info));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_BO_CREATE, a.bc.size = 4096);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_BO_MMAP_OFFSET, a.mo.handle = bo);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_STREAM_CREATE, (void)0);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_STREAM_DESTROY, a.sd2.handle = stream);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_ENQUEUE,
		      (a.e.stream = stream,
		       a.e.tasks.ptr = (uintptr_t)&task,
		       a.e.tasks.stride = sizeof(task),
		       a.e.tasks.count = 1));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_FLUSH, a.f.stream = stream);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_STREAM_ISOLATE,
		      (a.i.handle = stream,
		       a.i.op = DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_WAIT, a.w.handle = stream);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_STREAM_QUERY, a.sq.handle = stream);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_SET_PARAM,
		      (a.p.param = DRM_WEAVE_PARAM_STRATEGY, a.p.value = 0));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_CHECK,
		      (a.ck.ranges.ptr = (uintptr_t)&range,
		       a.ck.ranges.stride = sizeof(range),
		       a.ck.ranges.count = 1));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_READ,
		      (a.rd.handle = bo, a.rd.size = sizeof(word),
		       a.rd.data = (uintptr_t)&word));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_CAPTURE,
		      (a.cp.stream = stream,
		       a.cp.op = DRM_WEAVE_CAPTURE_QUERY));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_REPLAY,
		      (a.rp.graph = 1, a.rp.stream = stream));
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_GRAPH_DESTROY, a.gd.graph = 1);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_SHADER_CREATE, (void)0);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_SHADER_DESTROY, (void)0);
	EXPECT_ENODEV(DRM_IOCTL_WEAVE_ENGINE_ATTACH,
		      (a.raw[0] = 1, strcpy((char *)a.raw + 8, "test")));
	/* A driver ioctl number weave does not have. */
	EXPECT_ENODEV(DRM_IOWR(DRM_COMMAND_BASE + 0x3f, struct drm_weave_query),
		      (void)0);

	EXPECT_ENODEV(DRM_IOCTL_VERSION, (void)0);
	EXPECT_ENODEV(DRM_IOCTL_GET_CAP, a.cap.capability = DRM_CAP_SYNCOBJ);
	EXPECT_ENODEV(DRM_IOCTL_GEM_CLOSE, a.gem_close.handle = bo);
	EXPECT_ENODEV(DRM_IOCTL_PRIME_HANDLE_TO_FD,
		      (a.prime.handle = bo, a.prime.flags = DRM_CLOEXEC));
	EXPECT_ENODEV(DRM_IOCTL_PRIME_FD_TO_HANDLE, a.prime.fd = dmabuf);
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_CREATE, (void)0);
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_DESTROY, a.sd.handle = syncobj);
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, a.sh.handle = syncobj);
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_WAIT,
		      (a.sw.handles = (uintptr_t)&h, a.sw.count_handles = 1));
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_RESET,
		      (a.sa.handles = (uintptr_t)&h, a.sa.count_handles = 1));
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_SIGNAL,
		      (a.sa.handles = (uintptr_t)&h, a.sa.count_handles = 1));
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_QUERY,
		      (a.sta.handles = (uintptr_t)&h,
		       a.sta.points = (uintptr_t)a.raw + 128,
		       a.sta.count_handles = 1));
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_TRANSFER,
		      (a.st.src_handle = syncobj, a.st.dst_handle = syncobj));
	/* Arguments the guard would refuse: the unplug comes first. */
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_TRANSFER,
		      (a.st.src_handle = syncobj, a.st.dst_handle = syncobj,
		       a.st.flags = 1u << 31));
	EXPECT_ENODEV(DRM_IOCTL_SYNCOBJ_RESET, a.sa.count_handles = ~0u);
	/* Not even a DRM ioctl. */
	EXPECT_ENODEV(_IOWR('x', 1, uint64_t), (void)0);
#undef EXPECT_ENODEV
}

TEST_F(unplug, every_ioctl_on_an_old_file_fails_with_enodev)
{
	uint32_t stream, bo, syncobj;
	uint64_t offset = 0;
	int dmabuf = -1;
	void *map;

	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, weave_bo_mmap_offset(self->fd, bo, &offset));
	ASSERT_EQ(0, weave_bo_export(self->fd, bo, DRM_CLOEXEC, &dmabuf));

	unbind(_metadata, self->dev);
	EXPECT_EQ(0, weave_device_count());
	EXPECT_EQ(-ENODEV, weave_device_open(0));

	expect_all_enodev(_metadata, self->fd, stream, bo, syncobj, dmabuf);

	/* A new mapping of the old node. */
	map = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, offset);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(ENODEV, errno);
	if (map != MAP_FAILED)
		munmap(map, self->page);

	close(dmabuf);
	close_and_rebind(_metadata, self);
}

/* A 32-bit caller's ioctls fail the same way, where there are any. */
TEST_F(unplug, compat_ioctls_fail_with_enodev)
{
	struct drm_weave_stream_create *sc;
	long ret;
	void *low;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	sc = low;
	memset(sc, 0, sizeof(*sc));
	ret = weave_test_ioctl32(self->fd, DRM_IOCTL_WEAVE_STREAM_CREATE, sc);
	if (ret == -ENOSYS) {
		TH_LOG("no 32-bit system calls on this kernel: no compat path");
		munmap(low, 4096);
		return;
	}
	ASSERT_EQ(0, ret);

	unbind(_metadata, self->dev);
	EXPECT_EQ(-ENODEV, weave_test_ioctl32(self->fd,
					      DRM_IOCTL_WEAVE_STREAM_CREATE,
					      sc));
	EXPECT_EQ(-ENODEV, weave_test_ioctl32(self->fd,
					      DRM_IOCTL_SYNCOBJ_CREATE, sc));
	munmap(low, 4096);
	bind(_metadata, self->dev);
}

/*
 * A WAIT blocked on work that the unbind cancels: everything executed so
 * far, or with a seqno (uAPI 1.8), the stream's tasks up to it.
 */
struct waiter {
	int fd;
	uint32_t stream;
	uint64_t seqno;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	int64_t deadline = weave_timeout_ns(WEAVE_TEST_WAIT_NS);

	if (w->seqno)
		w->ret = weave_wait_seqno(w->fd, w->stream, w->seqno,
					  deadline);
	else
		w->ret = weave_wait(w->fd, w->stream, deadline);
	return NULL;
}

/* Start a waiter on @stream of @fd, with @seqno if not zero. */
static void waiter_start(struct __test_metadata *_metadata,
			 struct waiter *w, pthread_t *thread, int fd,
			 uint32_t stream, uint64_t seqno)
{
	w->fd = fd;
	w->stream = stream;
	w->seqno = seqno;
	w->ret = 1;
	ASSERT_EQ(0, pthread_create(thread, NULL, wait_thread, w));
}

/* The fence of @obj of @fd in a new syncobj of @to, which it returns. */
static uint32_t share_fence(struct __test_metadata *_metadata, int fd,
			    uint32_t obj, int to)
{
	int sfd = export_fence(_metadata, fd, obj);
	uint32_t copy = weave_test_syncobj(_metadata, to);

	ASSERT_EQ(0, drmSyncobjImportSyncFile(to, copy, sfd));
	close(sfd);
	return copy;
}

/*
 * Job @j of the load of unbind_during_load(): a delay of @delay_us, then
 * a fill of the first page of @bo, on @stream of @fd, gated on @gate if
 * not 0, flushed alone with its out-fence in @obj, exported to *@sfd;
 * the seqno of its last task goes to *@last.
 */
static void load_job(struct __test_metadata *_metadata, int fd,
		     uint32_t stream, uint32_t bo, int j, uint32_t gate,
		     uint32_t delay_us, uint32_t obj, int *sfd, uint64_t *last)
{
	struct drm_weave_sync in = weave_sync(gate, 0), out;
	struct weave_test_batch b;
	uint64_t page = weave_test_info(_metadata, fd).page_size;

	weave_test_batch_init(&b);
	weave_test_delay(&b, delay_us);
	weave_test_fill_task(&b, bo, 0, page, 0x11111111u * (j + 1));
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, gate ? &in : NULL,
				   gate ? 1 : 0, last));
	/* One job per flush, each with its own fence. */
	out = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(fd, stream, &out));
	*sfd = export_fence(_metadata, fd, obj);
}

/*
 * One try of unbind_during_load(), the @tries-th.  Returns true, having
 * closed the test's file and bound the device again, or false if the
 * second gate, a vgem one, expired before the checks that need it shut
 * were done: then only the checks that hold either way were made, and the
 * test's file must be opened again for another try.
 */
static bool unbind_during_load_once(struct __test_metadata *_metadata,
				    FIXTURE_DATA(unplug) *self, int tries)
{
	int sfds[LOAD_STREAMS * LOAD_JOBS], was[LOAD_STREAMS * LOAD_JOBS];
	uint32_t streams[LOAD_STREAMS], bos[LOAD_STREAMS];
	uint32_t *maps[LOAD_STREAMS], objs[LOAD_STREAMS], held[2], go[2];
	int st[LOAD_STREAMS * LOAD_JOBS], gated_was, gated_st, gate_st;
	struct weave_test_gate gate, load;
	struct drm_weave_sync out, in;
	struct weave_test_batch b;
	struct waiter waiter[3];
	uint32_t delay_us, gated, obj, idle;
	uint64_t last[LOAD_STREAMS], queued;
	int fd2, gate_sfd, gated_sfd, i, j;
	pthread_t thread[3];
	bool expired;

	/* Each job inside the job timeout, so that nothing else cuts it. */
	delay_us = self->info.job_timeout_ms * 1000u / 2;
	fd2 = weave_test_open(_metadata);

	/* A task queued on a stream of its own and never executed. */
	idle = weave_test_stream(_metadata, self->fd,
				 DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, idle, b.task, b.n, NULL, 0,
				   &queued));
	waiter_start(_metadata, &waiter[2], &thread[2], self->fd, idle,
		     queued);

	/* The streams, their buffers mapped, and the gated slot. */
	for (i = 0; i < LOAD_STREAMS; i++) {
		int fd = i & 1 ? fd2 : self->fd;

		streams[i] = weave_test_stream(_metadata, fd,
					       DRM_WEAVE_PRIORITY_NORMAL);
		bos[i] = weave_test_bo(_metadata, fd, 2 * self->page, 0);
		maps[i] = weave_test_map(_metadata, fd, bos[i],
					 2 * self->page);
		objs[i] = weave_test_syncobj(_metadata, fd);
	}
	gated = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	obj = weave_test_syncobj(_metadata, self->fd);
	/* The mappings reach the buffers; the second pages stay untouched. */
	maps[0][0] = 0xabcdef01u;
	EXPECT_EQ(0xabcdef01u, maps[0][0]);
	EXPECT_EQ(0u, maps[1][self->page / 4]);

	/* The load's gate, its fence in both files. */
	weave_test_gate_open(_metadata, &load, self->fd);
	go[0] = load.syncobj;
	go[1] = share_fence(_metadata, self->fd, load.syncobj, fd2);
	for (i = 0; i < LOAD_STREAMS; i++)
		for (j = 0; j < LOAD_JOBS - 1; j++)
			load_job(_metadata, i & 1 ? fd2 : self->fd, streams[i],
				 bos[i], j, j ? 0 : go[i & 1], delay_us,
				 objs[i], &sfds[i * LOAD_JOBS + j], &last[i]);

	/*
	 * Each stream's last job waits for @gate too, and so does the gated
	 * slot.  From here to the checks after the unbind, no set-up: a
	 * vgem gate opens by itself after 10 s.
	 */
	weave_test_gate_open(_metadata, &gate, self->fd);
	held[0] = gate.syncobj;
	held[1] = share_fence(_metadata, self->fd, gate.syncobj, fd2);
	for (i = 0; i < LOAD_STREAMS; i++)
		load_job(_metadata, i & 1 ? fd2 : self->fd, streams[i], bos[i],
			 LOAD_JOBS - 1, held[i & 1], delay_us, objs[i],
			 &sfds[(i + 1) * LOAD_JOBS - 1], &last[i]);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, gated, b.task, b.n, &in, 1,
				   NULL));
	out = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(self->fd, gated, &out));
	gated_sfd = export_fence(_metadata, self->fd, obj);
	gate_sfd = export_fence(_metadata, self->fd, gate.syncobj);

	waiter_start(_metadata, &waiter[0], &thread[0], self->fd, streams[0],
		     0);
	waiter_start(_metadata, &waiter[1], &thread[1], self->fd, streams[2],
		     last[2]);
	/* Time for the waiters to block; a later one fails as well. */
	usleep(100000);

	/* The load starts; each stream's last job waits for @gate. */
	weave_test_gate_try_signal(&load);
	for (i = 0; i < LOAD_STREAMS * LOAD_JOBS; i++)
		was[i] = fence_peek(_metadata, sfds[i], 0);
	gated_was = fence_peek(_metadata, gated_sfd, 0);
	expired = weave_test_gate_expired(self->fd, &gate);
	if (!expired) {
		for (i = LOAD_JOBS - 1; i < LOAD_STREAMS * LOAD_JOBS;
		     i += LOAD_JOBS)
			EXPECT_EQ(0, was[i]);
		/* The gated job too, held by its gate. */
		EXPECT_EQ(0, gated_was);
	}

	/*
	 * The unbind does not wait for the work: what @gate holds ends with
	 * -ENODEV while @gate is still shut, and the waiters return.
	 */
	unbind(_metadata, self->dev);
	for (i = 0; i < LOAD_STREAMS * LOAD_JOBS; i++)
		st[i] = fence_status(_metadata, sfds[i],
				     WEAVE_TEST_WAIT_NS / 1000000);
	gated_st = fence_status(_metadata, gated_sfd,
				WEAVE_TEST_WAIT_NS / 1000000);
	gate_st = fence_peek(_metadata, gate_sfd, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_join(thread[i], NULL));
	expired = expired || gate_st;

	/*
	 * Every fence pending then signalled, with -ENODEV; but a job that
	 * was running at the peek may have ended before the unbind took
	 * effect (done, or cut by its own timeout on a starved host), if it
	 * was not its stream's last.  The last ones, and the gated one,
	 * ended without waiting for their gate, still shut.
	 */
	for (i = 0; i < LOAD_STREAMS * LOAD_JOBS; i++) {
		if (!was[i] && (st[i] == 1 || st[i] == -ETIMEDOUT) &&
		    (expired || i % LOAD_JOBS != LOAD_JOBS - 1))
			continue;
		EXPECT_EQ(was[i] ? was[i] : -ENODEV, st[i]) {
			TH_LOG("job %d, status %d before the unbind", i, was[i]);
		}
	}
	if (!expired) {
		EXPECT_EQ(-ENODEV, gated_st);
		EXPECT_EQ(0, gate_st);
	}
	/* The waiters return with the unbind (or, early, with the work). */
	EXPECT_EQ(-ENODEV, waiter[2].ret) {
		TH_LOG("waiter 2 (seqno %llu): %s",
		       (unsigned long long)waiter[2].seqno,
		       strerror(-waiter[2].ret));
	}
	for (i = 0; i < 2; i++) {
		if (expired && !waiter[i].ret)
			continue;
		EXPECT_EQ(-ENODEV, waiter[i].ret) {
			TH_LOG("waiter %d (seqno %llu): %s", i,
			       (unsigned long long)waiter[i].seqno,
			       strerror(-waiter[i].ret));
		}
	}

	/* The mappings stop reaching the buffers, touched or not. */
	EXPECT_EQ(1, access_sigbus(&maps[0][0], 0));
	EXPECT_EQ(1, access_sigbus(&maps[0][self->page / 4], 0));
	EXPECT_EQ(1, access_sigbus(&maps[1][0], 1));

	for (i = 0; i < LOAD_STREAMS; i++)
		munmap(maps[i], 2 * self->page);
	if (expired) {
		/* Fails the test after the last try. */
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
	} else {
		/* Closing the gate's file signals it. */
		weave_test_gate_close(&gate);
	}
	weave_test_gate_close(&load);
	EXPECT_EQ(1, fence_status(_metadata, gate_sfd,
				  WEAVE_TEST_WAIT_NS / 1000000));
	close(fd2);
	close_and_rebind(_metadata, self);
	return !expired;
}

/*
 * The unbind meets work in flight: streams of two files, each with a
 * running delay job and more queued behind it, out-fences pending, a slot
 * gated on a foreign fence (a gate, which the unbind must not wait for),
 * buffers mapped, and WAITs blocked: on everything executed, on the seqno
 * of a submitted job, and on the seqno of a task that is queued and never
 * executed, which only the unbind can end.
 *
 * No clock decides what the unbind meets.  The load is held by a gate,
 * @load, while the test sets everything up, and starts only just before
 * the unbind; each stream's last job, and the gated slot, wait for a
 * second gate, @gate, which stays shut through the unbind.  So each
 * stream still has work pending when the device goes, however slow the
 * set-up, and the waiters are blocked until the unbind ends them.  A vgem
 * gate that expires before the unbind is done makes the test try again,
 * up to WEAVE_TEST_GATE_TRIES times, each with a new file.
 */
TEST_F_TIMEOUT(unplug, unbind_during_load, WEAVE_TEST_SLOW_S)
{
	int tries;

	for (tries = 1; !unbind_during_load_once(_metadata, self, tries);
	     tries++)
		self->fd = weave_test_open(_metadata);
}

/*
 * Flushes one NOOP on @stream of @fd, held by @gate, with its out-fence in
 * @obj, and returns that fence as a sync_file, checked pending.
 */
static int gated_job(struct __test_metadata *_metadata, int fd,
		     const struct weave_test_gate *gate, uint32_t stream,
		     uint32_t obj)
{
	struct drm_weave_sync out, in = weave_sync(gate->syncobj, 0);
	struct weave_test_batch b;
	int sfd;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, &in, 1, NULL));
	out = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(fd, stream, &out));
	sfd = export_fence(_metadata, fd, obj);
	EXPECT_EQ(0, fence_peek(_metadata, sfd, 0));
	return sfd;
}

/*
 * A pending fence handed out before the unbind signals with -ENODEV.  A
 * gate keeps it pending, whatever the unbind's time; the unbind does not
 * wait for the gate.  The unbind is within the gate's window: a try whose
 * vgem gate expired is made again, with the device bound again.
 */
TEST_F(unplug, fences_signal_with_enodev)
{
	struct weave_test_gate gate;
	int sfd, gate_sfd, st, gate_st, tries;
	uint32_t stream, obj;

	for (tries = 1;; tries++) {
		stream = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		obj = weave_test_syncobj(_metadata, self->fd);
		weave_test_gate_open(_metadata, &gate, self->fd);
		sfd = gated_job(_metadata, self->fd, &gate, stream, obj);
		gate_sfd = export_fence(_metadata, self->fd, gate.syncobj);

		unbind(_metadata, self->dev);
		st = fence_status(_metadata, sfd, WEAVE_TEST_WAIT_NS / 1000000);
		gate_st = fence_status(_metadata, gate_sfd, 0);
		if (!gate_st)
			break;
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		close(self->fd);
		weave_test_await_refs(_metadata, self->base);
		bind(_metadata, self->dev);
		self->fd = weave_test_open(_metadata);
	}
	EXPECT_EQ(-ENODEV, st);
	weave_test_gate_close(&gate);
	close(self->fd);
	self->fd = -1;
	weave_test_await_refs(_metadata, self->base);
	bind(_metadata, self->dev);
}

/* A buffer exported before the unbind stays usable through its dma-buf. */
TEST_F(unplug, exported_buffer_outlives_the_device)
{
	struct dma_buf_sync sync;
	uint32_t bo, *map, *dmap;
	int dmabuf = -1;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	map = weave_test_map(_metadata, self->fd, bo, self->page);
	weave_test_fill(map, self->page, 7);
	ASSERT_EQ(0, weave_bo_export(self->fd, bo, DRM_CLOEXEC | DRM_RDWR,
				     &dmabuf));

	unbind(_metadata, self->dev);
	EXPECT_EQ(1, access_sigbus(map, 0));
	munmap(map, self->page);
	close(self->fd);
	self->fd = -1;

	dmap = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED,
		    dmabuf, 0);
	ASSERT_NE(MAP_FAILED, dmap);
	sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
	EXPECT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	EXPECT_EQ(self->page, weave_test_check(dmap, self->page, 7));
	weave_test_fill(dmap, self->page, 8);
	EXPECT_EQ(self->page, weave_test_check(dmap, self->page, 8));
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	EXPECT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	munmap(dmap, self->page);
	close(dmabuf);
	weave_test_await_refs(_metadata, self->base);
	bind(_metadata, self->dev);
}

/*
 * Unbind with work in flight and bind again, CYCLES times: a job that may
 * be running, and one a gate holds, which only the unbind ends.
 */
TEST_F(unplug, repeated_unbind_and_bind)
{
	int cycle, sfd, held, gate_sfd, status, finished = 0, made = 0;
	int tries = 1;
	uint32_t stream, obj, bo, gated;
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync out;

	close(self->fd);
	self->fd = -1;
	for (cycle = 0; cycle < CYCLES; cycle++) {
		int fd = weave_test_open(_metadata);

		stream = weave_test_stream(_metadata, fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		bo = weave_test_bo(_metadata, fd, self->page, 0);
		obj = weave_test_syncobj(_metadata, fd);
		weave_test_batch_init(&b);
		weave_test_delay(&b, self->info.job_timeout_ms * 1000u / 2);
		weave_test_fill_task(&b, bo, 0, self->page, cycle);
		weave_test_enqueue(_metadata, fd, stream, &b);
		out = weave_sync(obj, 0);
		ASSERT_EQ(0, weave_flush(fd, stream, &out));
		sfd = export_fence(_metadata, fd, obj);
		/* And some queued, never flushed. */
		weave_test_enqueue_noop(_metadata, fd, stream);
		gated = weave_test_stream(_metadata, fd,
					  DRM_WEAVE_PRIORITY_NORMAL);
		obj = weave_test_syncobj(_metadata, fd);
		weave_test_gate_open(_metadata, &gate, fd);
		held = gated_job(_metadata, fd, &gate, gated, obj);
		gate_sfd = export_fence(_metadata, fd, gate.syncobj);

		unbind(_metadata, self->dev);
		/*
		 * The held job: cancelled, its gate still shut.  A vgem gate
		 * that expired proves nothing: the cycle is made again.
		 */
		status = fence_status(_metadata, held,
				      WEAVE_TEST_WAIT_NS / 1000000);
		if (fence_status(_metadata, gate_sfd, 0)) {
			weave_test_gate_again(_metadata, fd, &gate, tries++);
			cycle--;
		} else {
			EXPECT_EQ(-ENODEV, status) {
				TH_LOG("cycle %d", cycle);
			}
			weave_test_gate_close(&gate);
			tries = 1;
		}
		/*
		 * The job runs for half the timeout; on a loaded host the
		 * unbind can take longer, and the job then finishes first.
		 */
		status = fence_status(_metadata, sfd,
				      WEAVE_TEST_WAIT_NS / 1000000);
		finished += status == 1;
		made++;
		if (status != 1) {
			EXPECT_EQ(-ENODEV, status) {
				TH_LOG("cycle %d", cycle);
			}
		}
		EXPECT_EQ(-ENODEV, weave_stream_create(fd,
						       DRM_WEAVE_PRIORITY_NORMAL,
						       &stream));
		/* Closed in either order: this time before the bind. */
		if (cycle & 1)
			close(fd);
		bind(_metadata, self->dev);
		check_new_open(_metadata);
		if (!(cycle & 1))
			close(fd);
	}
	TH_LOG("%d of %d delay jobs finished before their unbind", finished,
	       made);
	weave_test_await_refs(_metadata, self->base);
}

/*
 * An unbind while the polling thread consumes a ring (uAPI 1.10): it is
 * stopped before the device goes, and a device bound again has a new one.
 */
TEST_F(unplug, unbind_with_a_polled_ring)
{
	struct weave_ring r;
	uint32_t stream;
	int i, fd;

	ASSERT_LE(10u, self->info.uapi_minor);
	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_ring_create_flags(self->fd, stream, 1024,
					     DRM_WEAVE_RING_CREATE_POLL, &r));
	for (i = 0; i < 400 && !weave_ring_noop(&r); i++)
		;
	weave_ring_publish(&r);
	unbind(_metadata, self->dev);
	EXPECT_EQ(-ENODEV, weave_ring_enter(self->fd, NULL));
	/* The mappings hold the file: they go first. */
	munmap(r.sq, r.sq_size);
	munmap((void *)r.hdr, self->page);
	close_and_rebind(_metadata, self);

	fd = weave_test_open(_metadata);
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_ring_create_flags(fd, stream, 64,
					     DRM_WEAVE_RING_CREATE_POLL, &r));
	ASSERT_EQ(0, weave_ring_noop(&r));
	ASSERT_EQ(0, weave_ring_submit(&r, NULL));
	for (i = 0; i < 30000 && weave_ring_head(&r) != r.tail; i++)
		usleep(1000);
	ASSERT_EQ(r.tail, weave_ring_head(&r));
	ASSERT_EQ(0, weave_ring_destroy(&r));
	close(fd);
	weave_test_await_refs(_metadata, self->base);
}

/*
 * An engine attached to an unbound device keeps its file, which holds
 * the old device until it is closed; the new device has no engine.
 */
TEST_F(unplug, unbind_with_an_engine_attached)
{
	struct drm_weave_engines e;
	int efd, fd;

	ASSERT_LE(13u, self->info.uapi_minor);
	ASSERT_EQ(0, weave_engine_attach(self->fd, 1, "test: unplugged", &efd,
					 NULL));
	unbind(_metadata, self->dev);
	EXPECT_EQ(-ENODEV, weave_query_engines(self->fd, &e));
	close(self->fd);
	self->fd = -1;
	/* The engine's file holds the module, and the device's memory. */
	EXPECT_LT(self->base, weave_test_module_refs());
	close(efd);
	weave_test_await_refs(_metadata, self->base);

	bind(_metadata, self->dev);
	fd = weave_test_open(_metadata);
	memset(&e, 0xff, sizeof(e));
	ASSERT_EQ(0, weave_query_engines(fd, &e));
	EXPECT_EQ(0u, e.queues[0].flags);
	EXPECT_EQ(0u, e.queues[0].generation);
	close(fd);
	weave_test_await_refs(_metadata, self->base);
}

/*
 * An unbind with no file open, and writes the driver core refuses (with
 * -ENODEV or -EBUSY, depending on the kernel), which change nothing.
 */
TEST_F(unplug, unbind_and_bind_misuse)
{
	close(self->fd);
	self->fd = -1;
	EXPECT_GT(0, driver_write("bind", self->dev));
	EXPECT_TRUE(is_bound(self->dev));
	unbind(_metadata, self->dev);
	EXPECT_GT(0, driver_write("unbind", self->dev));
	EXPECT_GT(0, driver_write("bind", "weave.99"));
	EXPECT_FALSE(is_bound(self->dev));
	EXPECT_EQ(0, weave_device_count());
	bind(_metadata, self->dev);
	EXPECT_GT(0, driver_write("bind", self->dev));
	EXPECT_EQ(1, weave_device_count());
	check_new_open(_metadata);
	weave_test_await_refs(_metadata, self->base);
}

/* A call stuck on user memory, on a thread of its own. */
struct stuck_ioctl {
	int fd;
	unsigned long req;
	void *arg;
	int ret;
	pthread_t thread;
};

static void *stuck_ioctl_run(void *p)
{
	struct stuck_ioctl *s = p;

	__atomic_store_n(&s->ret, ioctl(s->fd, s->req, s->arg) ? -errno : 0,
			 __ATOMIC_RELEASE);
	return NULL;
}

/* How often the test checks that no call ended while it waits for faults. */
#define STUCK_POLL_MS	1000

/* The stuck calls, each on page STUCK_x of the userfaultfd. */
enum {
	STUCK_TASKS,		/* ENQUEUE: its task array */
	STUCK_DATA,		/* ENQUEUE: a host write's bytes */
	STUCK_IN_SYNCS,		/* ENQUEUE: its in-syncs */
	STUCK_ARG,		/* STREAM_QUERY: the argument itself */
	STUCK_REPLAY,		/* REPLAY: its in-syncs */
	STUCK_QUERY,		/* QUERY: the reply it writes */
	STUCK_CHECK,		/* CHECK: its ranges */
	STUCK_READ,		/* READ: where it copies the bytes to */
	STUCK_N,
};

/*
 * Calls whose user memory faults into a userfaultfd that nothing serves
 * do not hold the unbind up: it returns while they are all still stuck
 * (an unbind that waited for one would never return).  Served afterwards,
 * the calls that had not reached the device fail with -ENODEV (QUERY,
 * CHECK and READ, which had, may succeed), and everything is released.
 */
TEST_F(unplug, unbind_does_not_wait_for_user_memory)
{
	struct drm_weave_enqueue enq[STUCK_N];
	struct drm_weave_replay replay;
	struct drm_weave_query query;
	struct drm_weave_capture cap;
	struct stuck_ioctl st[STUCK_N];
	struct drm_weave_task task, noop;
	struct drm_weave_sync in;
	struct drm_weave_binding wb;
	uint64_t seen = 0, addr;
	struct weave_uffd uf;
	uint32_t stream, bo, syncobj, i, j;
	uint8_t *content;

	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &syncobj, 1));
	/* A graph for REPLAY: one noop. */
	ASSERT_EQ(0, weave_capture(self->fd, stream,
				   DRM_WEAVE_CAPTURE_PREPARE, NULL));
	ASSERT_EQ(0, weave_capture(self->fd, stream, DRM_WEAVE_CAPTURE_BEGIN,
				   NULL));
	weave_test_enqueue_noop(_metadata, self->fd, stream);
	ASSERT_EQ(0, weave_capture(self->fd, stream, DRM_WEAVE_CAPTURE_END,
				   &cap));

	weave_uffd_open(_metadata, &uf, STUCK_N);
	/* What each page holds once it is served. */
	content = calloc(STUCK_N, uf.page);
	ASSERT_NE(NULL, content);
	wb = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, self->page);
	weave_task_launch(&noop, DRM_WEAVE_KERNEL_NOOP, NULL, 0, NULL, 0);
	weave_task_host_write(&task, &wb, uf.mem + STUCK_DATA * uf.page);
	memcpy(content + STUCK_TASKS * uf.page, &noop, sizeof(noop));
	weave_test_fill(content + STUCK_DATA * uf.page, uf.page, 0xda7a);
	in = weave_sync(syncobj, 0);
	memcpy(content + STUCK_IN_SYNCS * uf.page, &in, sizeof(in));
	memcpy(content + STUCK_REPLAY * uf.page, &in, sizeof(in));
	{
		struct drm_weave_stream_query sq = { .handle = stream };

		memcpy(content + STUCK_ARG * uf.page, &sq, sizeof(sq));
	}
	{
		struct drm_weave_check_range r = weave_check_range(bo, 0,
								   self->page);

		memcpy(content + STUCK_CHECK * uf.page, &r, sizeof(r));
	}

	memset(enq, 0, sizeof(enq));
	memset(st, 0, sizeof(st));
	for (i = STUCK_TASKS; i <= STUCK_IN_SYNCS; i++) {
		enq[i].stream = stream;
		enq[i].tasks.ptr = (uintptr_t)(i == STUCK_TASKS ?
					       uf.mem : i == STUCK_DATA ?
					       (uint8_t *)&task :
					       (uint8_t *)&noop);
		enq[i].tasks.stride = sizeof(task);
		enq[i].tasks.count = 1;
		st[i].req = DRM_IOCTL_WEAVE_ENQUEUE;
		st[i].arg = &enq[i];
	}
	enq[STUCK_IN_SYNCS].in_syncs.ptr = (uintptr_t)(uf.mem + STUCK_IN_SYNCS *
						       uf.page);
	enq[STUCK_IN_SYNCS].in_syncs.stride = sizeof(struct drm_weave_sync);
	enq[STUCK_IN_SYNCS].in_syncs.count = 1;
	st[STUCK_ARG].req = DRM_IOCTL_WEAVE_STREAM_QUERY;
	st[STUCK_ARG].arg = uf.mem + STUCK_ARG * uf.page;
	memset(&replay, 0, sizeof(replay));
	replay.graph = cap.graph;
	replay.stream = stream;
	replay.in_syncs.ptr = (uintptr_t)(uf.mem + STUCK_REPLAY * uf.page);
	replay.in_syncs.stride = sizeof(struct drm_weave_sync);
	replay.in_syncs.count = 1;
	st[STUCK_REPLAY].req = DRM_IOCTL_WEAVE_REPLAY;
	st[STUCK_REPLAY].arg = &replay;
	memset(&query, 0, sizeof(query));
	query.type = DRM_WEAVE_QUERY_DEVICE_INFO;
	query.size = sizeof(struct drm_weave_device_info);
	query.pointer = (uintptr_t)(uf.mem + STUCK_QUERY * uf.page);
	st[STUCK_QUERY].req = DRM_IOCTL_WEAVE_QUERY;
	st[STUCK_QUERY].arg = &query;
	{
		static struct drm_weave_check check;

		memset(&check, 0, sizeof(check));
		check.ranges.ptr = (uintptr_t)(uf.mem + STUCK_CHECK * uf.page);
		check.ranges.stride = sizeof(struct drm_weave_check_range);
		check.ranges.count = 1;
		st[STUCK_CHECK].req = DRM_IOCTL_WEAVE_CHECK;
		st[STUCK_CHECK].arg = &check;
	}
	{
		static struct drm_weave_read rd;

		memset(&rd, 0, sizeof(rd));
		rd.handle = bo;
		rd.size = self->page;
		rd.data = (uintptr_t)(uf.mem + STUCK_READ * uf.page);
		rd.timeout_ns = INT64_MAX;
		st[STUCK_READ].req = DRM_IOCTL_WEAVE_READ;
		st[STUCK_READ].arg = &rd;
	}

	for (i = 0; i < STUCK_N; i++) {
		st[i].fd = self->fd;
		st[i].ret = 1;
		ASSERT_EQ(0, pthread_create(&st[i].thread, NULL,
					    stuck_ioctl_run, &st[i]));
	}
	/*
	 * Every call faults on its page, however long that takes: the wait
	 * ends only if a call returns without having faulted.
	 */
	for (i = 0; i < STUCK_N; ) {
		addr = weave_uffd_fault(&uf, STUCK_POLL_MS);
		if (addr) {
			seen |= 1ull << ((addr - (uintptr_t)uf.mem) / uf.page);
			i++;
			continue;
		}
		for (j = 0; j < STUCK_N; j++)
			if (__atomic_load_n(&st[j].ret, __ATOMIC_ACQUIRE) != 1)
				break;
		ASSERT_EQ((uint32_t)STUCK_N, j) {
			TH_LOG("call %u returned before it faulted (%u of %u calls reached their page)",
			       j, i, STUCK_N);
		}
	}
	ASSERT_EQ((1ull << STUCK_N) - 1, seen);

	/*
	 * No page is served before the unbind returns, so a call stuck on
	 * one cannot have returned: the unbind did not wait for them.
	 */
	unbind(_metadata, self->dev);
	for (i = 0; i < STUCK_N; i++)
		EXPECT_EQ(1, __atomic_load_n(&st[i].ret, __ATOMIC_ACQUIRE))
			TH_LOG("call %u returned before its page was served",
			       i);

	for (i = 0; i < STUCK_N; i++)
		ASSERT_EQ(0, weave_uffd_serve(&uf, i,
					      content + i * uf.page));
	for (i = 0; i < STUCK_N; i++) {
		ASSERT_EQ(0, pthread_join(st[i].thread, NULL));
		if (i == STUCK_QUERY || i == STUCK_CHECK || i == STUCK_READ) {
			EXPECT_TRUE(st[i].ret == 0 || st[i].ret == -ENODEV)
				TH_LOG("call %u: %d", i, st[i].ret);
		} else {
			EXPECT_EQ(-ENODEV, st[i].ret) TH_LOG("call %u", i);
		}
	}
	weave_uffd_free(&uf);
	free(content);

	close_and_rebind(_metadata, self);
}

TEST_HARNESS_MAIN
