// SPDX-License-Identifier: GPL-2.0
/*
 * Waits a caller can interrupt.  A signal ends WAIT's wait for its
 * fences: without SA_RESTART the call fails with -EINTR having changed
 * nothing; with SA_RESTART it restarts, transparently.  An ENQUEUE waits
 * for user memory that is not there holding no lock, so the client's
 * other calls go on meanwhile, and a kill ends that wait; it faults in
 * what it reads and retries, and memory that is not mapped still fails
 * it with -EFAULT.  (The staging arena's wait is in staging.c.)
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_uffd.h"

/*
 * How long the tests wait for a call to reach the fault they set up (a
 * debug kernel is slow).
 */
#define FAULT_MS	20000

FIXTURE(signals) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
};

FIXTURE_SETUP(signals)
{
	WEAVE_TEST_FILE_SETUP();
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
}

FIXTURE_TEARDOWN(signals)
{
	close(self->fd);
}

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

/* Installs on_signal() for @sig, with SA_RESTART if @restart. */
static void catch_signal(struct __test_metadata *_metadata, int sig,
			 int restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(sig, &sa, NULL));
	handled = 0;
}

/* A raw ioctl: drmIoctl() would restart it on EINTR. */
static int raw_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* Arms SIGALRM to fire once, @ms from now. */
static void alarm_in(struct __test_metadata *_metadata, long ms)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = ms % 1000 * 1000;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
}

/* Work on the stream held back by @gate: a noop, flushed. */
static void held_work(struct __test_metadata *_metadata,
		      FIXTURE_DATA(signals) *self, struct weave_test_gate *gate)
{
	weave_test_gate_open(_metadata, gate, self->fd);
	ASSERT_EQ(0, weave_test_gated_noop(gate, self->fd, self->stream));
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
}

/* WAIT without SA_RESTART: -EINTR at the signal, the work still held. */
TEST_F(signals, wait_fails_with_eintr)
{
	struct drm_weave_wait args;
	struct weave_test_gate gate;
	int ret;

	held_work(_metadata, self, &gate);
	catch_signal(_metadata, SIGALRM, 0);
	memset(&args, 0, sizeof(args));
	args.handle = self->stream;
	/* No deadline: only the signal can end the wait. */
	args.timeout_ns = INT64_MAX;
	alarm_in(_metadata, 200);
	ret = raw_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &args);
	signal(SIGALRM, SIG_DFL);
	EXPECT_EQ(-EINTR, ret);
	EXPECT_EQ(1, handled);
	/* Nothing changed: the task is neither lost nor completed. */
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).enqueued);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_finish(_metadata, self->fd, self->stream);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
}

/*
 * WAIT with SA_RESTART: the handler runs and the call goes on to its
 * absolute deadline, as if nothing had happened.
 */
TEST_F(signals, wait_restarts_with_sa_restart)
{
	struct drm_weave_wait args;
	struct weave_test_gate gate;
	int ret;

	held_work(_metadata, self, &gate);
	catch_signal(_metadata, SIGALRM, 1);
	memset(&args, 0, sizeof(args));
	args.handle = self->stream;
	/* The deadline after the alarm's, whatever the time between. */
	alarm_in(_metadata, 200);
	args.timeout_ns = weave_timeout_ns(WEAVE_TEST_SEC);
	ret = raw_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &args);
	signal(SIGALRM, SIG_DFL);
	EXPECT_EQ(-ETIME, ret);
	EXPECT_EQ(1, handled);
	EXPECT_LE(args.timeout_ns, weave_test_now());
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_finish(_metadata, self->fd, self->stream);
}

/* An ENQUEUE of one host write, run on a thread of its own. */
struct stuck_call {
	int fd;
	struct drm_weave_enqueue args;
	struct drm_weave_task task;
	struct drm_weave_binding bind;
	int ret;
};

static void *stuck_enqueue(void *arg)
{
	struct stuck_call *s = arg;

	s->ret = raw_ioctl(s->fd, DRM_IOCTL_WEAVE_ENQUEUE, &s->args);
	return NULL;
}

/* Sets @s up to write a page of @bo from @data. */
static void stuck_setup(FIXTURE_DATA(signals) *self, struct stuck_call *s,
			uint32_t bo, const void *data)
{
	memset(s, 0, sizeof(*s));
	s->fd = self->fd;
	s->bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, self->page);
	weave_task_host_write(&s->task, &s->bind, data);
	s->args.stream = self->stream;
	s->args.tasks.ptr = (uintptr_t)&s->task;
	s->args.tasks.stride = sizeof(s->task);
	s->args.tasks.count = 1;
}

/*
 * Other calls of the client, which take its lock, go through while @s is
 * stuck in a fault of its user memory: the fault is served only after
 * them, so a call that waited for the stuck one would never return (the
 * harness's timeout fails the test), however slow the machine.
 */
static void expect_client_usable(struct __test_metadata *_metadata,
				 FIXTURE_DATA(signals) *self)
{
	struct drm_weave_client_usage u;
	struct weave_test_batch b;

	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).enqueued);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(0u, u.pending_tasks);
	EXPECT_EQ(0u, u.staged_bytes);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	EXPECT_EQ(0, weave_test_submit(self->fd, self->stream, &b));
	EXPECT_EQ(0, weave_flush(self->fd, self->stream, NULL));
}

/*
 * An ENQUEUE whose host-write bytes are on a page that is not there waits
 * for it holding no lock: the client's other calls go on.  Once the page
 * comes, the ENQUEUE queues the write with its bytes.
 */
TEST_F(signals, enqueue_stuck_on_user_memory_holds_no_lock)
{
	struct stuck_call s;
	struct weave_uffd uf;
	uint8_t *data, *map;
	pthread_t thread;
	uint32_t bo;

	weave_uffd_open(_metadata, &uf, 1);
	data = malloc(self->page);
	ASSERT_NE(NULL, data);
	weave_test_fill(data, self->page, 0x5e5e);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	stuck_setup(self, &s, bo, uf.mem);
	ASSERT_EQ(0, pthread_create(&thread, NULL, stuck_enqueue, &s));
	ASSERT_EQ((uintptr_t)uf.mem, weave_uffd_fault(&uf, FAULT_MS)) {
		TH_LOG("the ENQUEUE never read its bytes");
	}

	expect_client_usable(_metadata, self);

	ASSERT_EQ(0, weave_uffd_serve(&uf, 0, data));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, s.ret);
	EXPECT_EQ(2u, s.args.seqno);
	weave_test_finish(_metadata, self->fd, self->stream);
	map = weave_test_map(_metadata, self->fd, bo, self->page);
	EXPECT_EQ(0, memcmp(map, data, self->page));
	weave_test_unmap(_metadata, map, self->page);
	free(data);
	weave_uffd_free(&uf);
}

/*
 * A process killed while its ENQUEUE waits for a page that never comes
 * dies at once (a wait for user memory, as any access to it, ends with a
 * fatal signal), and its file and everything it held go.
 */
TEST_F(signals, kill_while_stuck_on_user_memory)
{
	long base = weave_test_settled_refs();
	int status, pipefd[2];
	pid_t child;
	char c;

	ASSERT_EQ(0, pipe(pipefd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		FIXTURE_DATA(signals) own = *self;
		struct stuck_call s;
		struct weave_uffd uf;
		pthread_t thread;
		uint32_t bo;

		own.fd = weave_test_open(_metadata);
		own.stream = weave_test_stream(_metadata, own.fd,
					       DRM_WEAVE_PRIORITY_NORMAL);
		weave_uffd_open(_metadata, &uf, 1);
		bo = weave_test_bo(_metadata, own.fd, own.page, 0);
		stuck_setup(&own, &s, bo, uf.mem);
		if (pthread_create(&thread, NULL, stuck_enqueue, &s))
			_exit(1);
		if (weave_uffd_fault(&uf, FAULT_MS) != (uintptr_t)uf.mem)
			_exit(2);
		/* Stuck: tell the parent, then wait for the kill. */
		if (write(pipefd[1], "s", 1) != 1)
			_exit(3);
		pthread_join(thread, NULL);
		_exit(4);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1)) {
		TH_LOG("the child's ENQUEUE never reached its page");
	}
	close(pipefd[0]);
	/* Nobody serves the page: a child the kill did not end never ends. */
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) {
		TH_LOG("the child exited with %d before the kill",
		       WEXITSTATUS(status));
	}
	weave_test_await_refs(_metadata, base);
}

/* Bytes of each host write the lock's holder copies in under the lock. */
#define HOLDER_BYTES	(16u << 20)

/* How long the contention test may try to catch a wait for the lock. */
#define CONTEND_NS	(20 * WEAVE_TEST_SEC)

/* A thread that keeps the client's lock busy with long host writes. */
struct lock_holder {
	int fd;
	uint32_t stream, bo;
	uint8_t *data;
	volatile int stop;
	int errors;
};

static void *hold_lock(void *p)
{
	struct lock_holder *h = p;
	struct weave_test_batch b;
	int ret;

	while (!h->stop) {
		weave_test_batch_init(&b);
		weave_test_write_task(&b, h->bo, 0, HOLDER_BYTES, h->data);
		ret = weave_test_submit(h->fd, h->stream, &b);
		if (!ret)
			ret = weave_flush(h->fd, h->stream, NULL);
		if (!ret)
			ret = weave_wait(h->fd, h->stream,
					 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
		if (ret)
			h->errors++;
	}
	return NULL;
}

/* A thread that signals @target every half millisecond. */
struct pester {
	pthread_t target;
	volatile int stop;
};

static void *pester_run(void *p)
{
	struct pester *k = p;

	while (!k->stop) {
		pthread_kill(k->target, SIGUSR1);
		usleep(500);
	}
	return NULL;
}

/* STREAM_DESTROY, which waits for the client's lock as CREATE does. */
static int stream_destroy_locked(int fd, uint32_t handle)
{
	struct drm_weave_stream_destroy sd;

	memset(&sd, 0, sizeof(sd));
	sd.stream = handle;
	return raw_ioctl(fd, DRM_IOCTL_WEAVE_STREAM_DESTROY, &sd);
}

/*
 * Calls that wait for the client's lock, held by another thread's long
 * host writes, end with -EINTR at a signal (no SA_RESTART), having done
 * nothing: every stream created and not destroyed is one whose create
 * succeeded and whose destroy did not.  Whether a
 * signal finds a caller waiting is up to the scheduler, so the test tries
 * until it has seen some.
 */
TEST_F_TIMEOUT(signals, lock_wait_fails_with_eintr, 120)
{
	uint32_t created = 0, intr = 0, other = 0;
	struct drm_weave_stream_create sc;
	struct drm_weave_stream_query sq;
	struct lock_holder h;
	pthread_t holder, pester;
	struct pester k;
	int64_t end;
	int ret;

	memset(&h, 0, sizeof(h));
	h.fd = self->fd;
	h.stream = self->stream;
	h.bo = weave_test_bo(_metadata, self->fd, HOLDER_BYTES, 0);
	h.data = malloc(HOLDER_BYTES);
	ASSERT_NE(NULL, h.data);
	weave_test_fill(h.data, HOLDER_BYTES, 0x10c4);
	catch_signal(_metadata, SIGUSR1, 0);
	memset(&k, 0, sizeof(k));
	k.target = pthread_self();
	ASSERT_EQ(0, pthread_create(&holder, NULL, hold_lock, &h));
	ASSERT_EQ(0, pthread_create(&pester, NULL, pester_run, &k));

	end = weave_test_now() + CONTEND_NS;
	while (intr < 3 && weave_test_now() < end) {
		memset(&sq, 0, sizeof(sq));
		sq.handle = self->stream;
		ret = raw_ioctl(self->fd, DRM_IOCTL_WEAVE_STREAM_QUERY, &sq);
		intr += ret == -EINTR;
		other += ret && ret != -EINTR;
		memset(&sc, 0, sizeof(sc));
		ret = raw_ioctl(self->fd, DRM_IOCTL_WEAVE_STREAM_CREATE, &sc);
		created += !ret;
		intr += ret == -EINTR;
		other += ret && ret != -EINTR;
		/*
		 * A slow machine loops long before it sees its signals:
		 * destroy what it created, or it meets max_streams.
		 */
		if (!ret)
			ret = stream_destroy_locked(self->fd, sc.handle);
		else
			ret = 1;
		created -= !ret;
		intr += ret == -EINTR;
		other += ret < 0 && ret != -EINTR;
	}
	k.stop = 1;
	h.stop = 1;
	ASSERT_EQ(0, pthread_join(pester, NULL));
	ASSERT_EQ(0, pthread_join(holder, NULL));
	signal(SIGUSR1, SIG_DFL);
	TH_LOG("%u calls interrupted, %u streams left, %d signals",
	       intr, created, (int)handled);
	EXPECT_EQ(0u, other);
	EXPECT_EQ(0, h.errors);
	EXPECT_LT(0u, intr);
	/* The fixture's stream and the created ones, no more. */
	EXPECT_EQ(1u + created,
		  weave_test_client_usage(_metadata, self->fd).streams);
	free(h.data);
}

/*
 * Tasks, bindings and host-write bytes whose pages are not mapped in yet
 * (a shared file mapping just zapped): the ENQUEUE faults them in, with
 * nothing held, and queues every task, with its bytes.
 */
TEST_F(signals, enqueue_faults_in_what_it_reads)
{
	struct drm_weave_binding *bind;
	struct drm_weave_task *tasks;
	uint8_t *mem, *data, *map;
	uint32_t bo;
	int memfd;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	memfd = memfd_create("weave-signals", MFD_CLOEXEC);
	ASSERT_LE(0, memfd);
	ASSERT_EQ(0, ftruncate(memfd, 2 * self->page));
	mem = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE, MAP_SHARED,
		   memfd, 0);
	ASSERT_NE(MAP_FAILED, mem);
	tasks = (struct drm_weave_task *)mem;
	bind = (struct drm_weave_binding *)(mem + self->page / 2);
	data = mem + self->page;
	weave_test_fill(data, self->page, 0xfa17);
	bind[0] = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, self->page);
	weave_task_launch(&tasks[0], DRM_WEAVE_KERNEL_NOOP, NULL, 0, NULL, 0);
	weave_task_host_write(&tasks[1], &bind[0], data);
	/* The contents stay in the file; the mappings go. */
	ASSERT_EQ(0, madvise(mem, 2 * self->page, MADV_DONTNEED));

	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, tasks, 2, NULL, 0,
				   NULL));
	weave_test_finish(_metadata, self->fd, self->stream);
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	map = weave_test_map(_metadata, self->fd, bo, self->page);
	EXPECT_EQ(0, memcmp(map, data, self->page));
	weave_test_unmap(_metadata, map, self->page);
	munmap(mem, 2 * self->page);
	close(memfd);
}

/* A task array on memory that is not mapped still fails with -EFAULT. */
TEST_F(signals, unmapped_tasks_fail_with_efault)
{
	struct weave_test_batch b;
	void *mem;

	mem = mmap(NULL, self->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	EXPECT_EQ(-EFAULT, weave_enqueue(self->fd, self->stream, mem, 1, NULL,
					 0, NULL));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).enqueued);
	munmap(mem, self->page);
}

TEST_HARNESS_MAIN
