// SPDX-License-Identifier: GPL-2.0-only
/*
 * kcov-collect: an LD_PRELOAD library that gathers the KCOV coverage of
 * every task of a program (each thread, each forked child) that falls in
 * one address range (weave.ko's), and writes it at exit, one hexadecimal
 * PC a line (KCOV's own: the return address of each call to the hook), to
 * KCOV_COLLECT_DIR/pcs.PID.  scripts/syz-fuzzcover.sh runs weave's own
 * fuzzer suites under it, to compare their coverage of kmod/ with
 * syzkaller's.
 *
 * KCOV is per task: each task opens /sys/kernel/debug/kcov, maps its own
 * buffer and enables it.  The kernel appends to a task's buffer only while
 * that task runs in the kernel, and bumps the count before it writes the
 * PC, so a buffer is read and reset only by its own task, back in user
 * space: before and after each ioctl, close, mmap and munmap (the calls
 * that reach weave's node), around fork and pthread_create, at the
 * task's end and at the process's exit, as syzkaller's executor does
 * around each call.  A full buffer loses what the kernel records after
 * it; the fills found right after a call to weave's node (which did lose
 * PCs of that call) and the others (the kernel's work between two such
 * calls) are counted apart and said on stderr at exit.  What the kernel
 * runs as a process exits (the release of the files it left open) is
 * not recorded: KCOV stops at the start of do_exit().
 *
 * Environment: KCOV_COLLECT_DIR (where to write), KCOV_COLLECT_RANGE
 * ("ADDR+SIZE", the address in hexadecimal, the size in decimal: which
 * PCs to keep), KCOV_COLLECT_WORDS (the entries of each task's buffer).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_TRACE_PC 0
/*
 * Entries of each task's buffer (8 bytes each), the first the count, unless
 * KCOV_COLLECT_WORDS says: with 1 << 18, 53 of a 120 s run's ENQUEUEs
 * (the kernel instrumented whole, with KASAN and lockdep) filled theirs;
 * with 1 << 20, 10 of some 7,000.
 */
#define KC_WORDS_DEFAULT (1UL << 20)
#define KC_TASKS 4096
#define KC_SET (1UL << 20)

struct kc_task {
	unsigned long *area;
	int fd;
};

static pthread_mutex_t kc_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long kc_words = KC_WORDS_DEFAULT;
static struct kc_task kc_tasks[KC_TASKS];
static uintptr_t kc_lo, kc_hi;
static uintptr_t *kc_set;	/* open addressing, 0 is empty */
static unsigned long kc_count, kc_full_node, kc_full_other;
static int kc_on;
static pthread_key_t kc_key;
static __thread struct kc_task *kc_self;
static __thread int kc_busy;

static int (*real_ioctl)(int, unsigned long, void *);
static int (*real_close)(int);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);

static void kc_add(uintptr_t pc)
{
	unsigned long i = (pc >> 1) * 0x9E3779B97F4A7C15UL % KC_SET;

	if (pc < kc_lo || pc >= kc_hi || kc_count >= KC_SET / 2)
		return;
	while (kc_set[i] && kc_set[i] != pc)
		i = (i + 1) % KC_SET;
	if (!kc_set[i]) {
		kc_set[i] = pc;
		kc_count++;
	}
}

/*
 * Moves the PCs of one buffer into the set; with kc_lock held.  Returns
 * whether the buffer was full (the kernel dropped what came after).
 */
static int kc_drain_one(struct kc_task *t)
{
	unsigned long n = __atomic_load_n(&t->area[0], __ATOMIC_RELAXED);
	unsigned long i;
	int full = n >= kc_words - 1;

	if (full)
		n = kc_words - 1;
	for (i = 0; i < n; i++)
		kc_add(t->area[i + 1]);
	__atomic_store_n(&t->area[0], 0, __ATOMIC_RELAXED);
	return full;
}

/*
 * The calling task's buffer, from user space; not again from a signal
 * handler that interrupts it.  CALL: the call that may reach weave's node
 * just made (drained right before it, so that a full buffer says that
 * this call lost PCs), with ARG (an ioctl's request, a length, an fd);
 * NULL elsewhere.
 */
static void kc_drain_self(const char *call, unsigned long arg)
{
	int full;

	if (!kc_on || !kc_self || kc_busy)
		return;
	kc_busy = 1;
	pthread_mutex_lock(&kc_lock);
	full = kc_drain_one(kc_self);
	if (full && call)
		kc_full_node++;
	else if (full)
		kc_full_other++;
	pthread_mutex_unlock(&kc_lock);
	if (full && call)
		fprintf(stderr, "kcov-collect: %s %#lx filled its task's buffer\n",
			call, arg);
	kc_busy = 0;
}

/*
 * Enables KCOV for the calling task.  Returns 0, or -1 with errno set.
 */
static int kc_enable(void)
{
	struct kc_task *t = NULL;
	unsigned long *area;
	int fd, i, err;

	fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (real_ioctl(fd, KCOV_INIT_TRACE, (void *)kc_words))
		goto close_fd;
	area = real_mmap(NULL, kc_words * sizeof(long), PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		goto close_fd;
	pthread_mutex_lock(&kc_lock);
	for (i = 0; i < KC_TASKS && !t; i++)
		if (!kc_tasks[i].area)
			t = &kc_tasks[i];
	if (t) {
		t->area = area;
		t->fd = fd;
	}
	pthread_mutex_unlock(&kc_lock);
	if (!t)
		errno = ENOSPC;
	if (!t || real_ioctl(fd, KCOV_ENABLE, (void *)KCOV_TRACE_PC)) {
		if (t) {
			pthread_mutex_lock(&kc_lock);
			t->area = NULL;
			pthread_mutex_unlock(&kc_lock);
		}
		real_munmap(area, kc_words * sizeof(long));
		goto close_fd;
	}
	kc_self = t;
	pthread_setspecific(kc_key, t);
	return 0;
close_fd:
	err = errno;
	real_close(fd);
	errno = err;
	return -1;
}

/* A thread's end: its last PCs, then its buffer is released. */
static void kc_thread_end(void *slot)
{
	struct kc_task *t = slot;
	unsigned long *area;

	pthread_mutex_lock(&kc_lock);
	kc_full_other += kc_drain_one(t);
	area = t->area;
	t->area = NULL;
	pthread_mutex_unlock(&kc_lock);
	kc_self = NULL;
	real_munmap(area, kc_words * sizeof(long));
	real_close(t->fd);
}

/*
 * The process's exit: its own buffer, then those of threads still running
 * (whatever they recorded since their last call), then the set.
 */
static void kc_write(void)
{
	const char *dir = getenv("KCOV_COLLECT_DIR");
	char path[4096];
	unsigned long i;
	FILE *f;

	if (!kc_on || !dir)
		return;
	kc_drain_self(NULL, 0);
	pthread_mutex_lock(&kc_lock);
	for (i = 0; i < KC_TASKS; i++)
		if (kc_tasks[i].area && &kc_tasks[i] != kc_self)
			kc_full_other += kc_drain_one(&kc_tasks[i]);
	if (kc_full_node)
		fprintf(stderr, "kcov-collect: process %d: %lu calls to weave's node filled their buffer and lost PCs\n",
			(int)getpid(), kc_full_node);
	if (kc_full_other)
		fprintf(stderr, "kcov-collect: process %d: %lu buffers filled between calls to weave's node\n",
			(int)getpid(), kc_full_other);
	snprintf(path, sizeof(path), "%s/pcs.%d", dir, (int)getpid());
	f = fopen(path, "w");
	if (f) {
		for (i = 0; i < KC_SET; i++)
			if (kc_set[i])
				fprintf(f, "0x%lx\n", (unsigned long)kc_set[i]);
		fclose(f);
	}
	pthread_mutex_unlock(&kc_lock);
}

/*
 * A new process: an empty set and KCOV for its task.  A forked child
 * still maps its parent's buffers, which it leaves alone.  A task
 * without KCOV is said on stderr: its coverage is missing.
 */
static void kc_process_start(void)
{
	pthread_mutex_init(&kc_lock, NULL);
	memset(kc_tasks, 0, sizeof(kc_tasks));
	memset(kc_set, 0, KC_SET * sizeof(*kc_set));
	kc_count = 0;
	kc_full_node = 0;
	kc_full_other = 0;
	kc_self = NULL;
	kc_busy = 0;
	if (kc_enable())
		fprintf(stderr, "kcov-collect: no KCOV for process %d: %m\n",
			(int)getpid());
}

/* libc's calls: from the wrappers below, which may run before kc_init(). */
static int kc_resolve(void)
{
	if (!real_munmap) {
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
		real_close = dlsym(RTLD_NEXT, "close");
		real_mmap = dlsym(RTLD_NEXT, "mmap");
		real_munmap = dlsym(RTLD_NEXT, "munmap");
	}
	return real_ioctl && real_close && real_mmap && real_munmap ? 0 : -1;
}

__attribute__((constructor)) static void kc_init(void)
{
	const char *range = getenv("KCOV_COLLECT_RANGE");
	const char *words = getenv("KCOV_COLLECT_WORDS");
	unsigned long lo, size;

	if (kc_resolve())
		return;
	if (!range || sscanf(range, "%lx+%lu", &lo, &size) != 2 || !size)
		return;
	if (words && strtoul(words, NULL, 0) >= 2)
		kc_words = strtoul(words, NULL, 0);
	kc_set = calloc(KC_SET, sizeof(*kc_set));
	if (!kc_set || pthread_key_create(&kc_key, kc_thread_end))
		return;
	kc_lo = lo;
	kc_hi = lo + size;
	kc_on = 1;
	atexit(kc_write);
	kc_process_start();
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret, err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	kc_resolve();
	kc_drain_self(NULL, 0);
	ret = real_ioctl(fd, req, arg);
	err = errno;
	kc_drain_self("ioctl", req);
	errno = err;
	return ret;
}

int close(int fd)
{
	int ret, err;

	kc_resolve();
	kc_drain_self(NULL, 0);
	ret = real_close(fd);
	err = errno;
	kc_drain_self("close", fd);
	errno = err;
	return ret;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *ret;
	int err;

	kc_resolve();
	kc_drain_self(NULL, 0);
	ret = real_mmap(addr, len, prot, flags, fd, off);
	err = errno;
	kc_drain_self("mmap", len);
	errno = err;
	return ret;
}

int munmap(void *addr, size_t len)
{
	int ret, err;

	kc_resolve();
	kc_drain_self(NULL, 0);
	ret = real_munmap(addr, len);
	err = errno;
	kc_drain_self("munmap", len);
	errno = err;
	return ret;
}

struct kc_start {
	void *(*fn)(void *);
	void *arg;
};

static void *kc_trampoline(void *p)
{
	struct kc_start s = *(struct kc_start *)p;

	free(p);
	kc_enable();
	return s.fn(s.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);
	struct kc_start *s;
	int ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	if (!kc_on)
		return real(th, attr, fn, arg);
	s = malloc(sizeof(*s));
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	kc_drain_self(NULL, 0);
	ret = real(th, attr, kc_trampoline, s);
	kc_drain_self(NULL, 0);
	return ret;
}

pid_t fork(void)
{
	static pid_t (*real)(void);
	pid_t pid;

	if (!real)
		real = dlsym(RTLD_NEXT, "fork");
	kc_drain_self(NULL, 0);
	pid = real();
	if (pid == 0 && kc_on)
		kc_process_start();
	else
		kc_drain_self(NULL, 0);
	return pid;
}

void _exit(int status)
{
	static void (*real)(int) __attribute__((noreturn));

	if (!real)
		real = dlsym(RTLD_NEXT, "_exit");
	kc_write();
	real(status);
}
