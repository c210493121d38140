// SPDX-License-Identifier: GPL-2.0-only
/*
 * kcov-collect: an LD_PRELOAD library that gathers the KCOV coverage of
 * every task of a program (each thread, each forked child) that falls in
 * one address range (weave.ko's), and writes it at exit, one hexadecimal
 * PC a line, to KCOV_COLLECT_DIR/pcs.PID.  scripts/syz-fuzzcover.sh runs
 * weave's own fuzzer suites under it, to compare their coverage of kmod/
 * with syzkaller's.
 *
 * KCOV is per task: each task opens /sys/kernel/debug/kcov, maps its own
 * buffer and enables it.  A drain thread in each process moves the PCs of
 * every buffer into one set every few milliseconds, so that no buffer
 * fills; a PC that a task records while the drain resets its buffer may be
 * lost, which the buffer's size makes rare.
 *
 * Environment: KCOV_COLLECT_DIR (where to write), KCOV_COLLECT_RANGE
 * ("ADDR+SIZE", the address in hexadecimal, the size in decimal: which
 * PCs to keep).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
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
/* Entries of each task's buffer (8 bytes each). */
#define KC_WORDS (1UL << 18)
#define KC_TASKS 4096
#define KC_SET (1UL << 20)

struct kc_task {
	unsigned long *area;
	int fd;
};

static pthread_mutex_t kc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kc_task kc_tasks[KC_TASKS];
static uintptr_t kc_lo, kc_hi;
static uintptr_t *kc_set;	/* open addressing, 0 is empty */
static unsigned long kc_count;
static int kc_on;
static pthread_key_t kc_key;

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

/* Moves the PCs of one buffer into the set; with kc_lock held. */
static void kc_drain_one(struct kc_task *t)
{
	unsigned long n = __atomic_load_n(&t->area[0], __ATOMIC_RELAXED);
	unsigned long i;

	if (n >= KC_WORDS)
		n = KC_WORDS - 1;
	for (i = 0; i < n; i++)
		kc_add(t->area[i + 1]);
	__atomic_store_n(&t->area[0], 0, __ATOMIC_RELAXED);
}

static void kc_drain_all(void)
{
	int i;

	pthread_mutex_lock(&kc_lock);
	for (i = 0; i < KC_TASKS; i++)
		if (kc_tasks[i].area)
			kc_drain_one(&kc_tasks[i]);
	pthread_mutex_unlock(&kc_lock);
}

static void *kc_drainer(void *arg)
{
	(void)arg;
	for (;;) {
		usleep(5000);
		kc_drain_all();
	}
	return NULL;
}

/* Enables KCOV for the calling task; its slot goes to the thread key. */
static void kc_enable(void)
{
	struct kc_task *t = NULL;
	unsigned long *area;
	int fd, i;

	fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (ioctl(fd, KCOV_INIT_TRACE, KC_WORDS))
		goto close_fd;
	area = mmap(NULL, KC_WORDS * sizeof(long), PROT_READ | PROT_WRITE,
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
	if (!t || ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		if (t) {
			pthread_mutex_lock(&kc_lock);
			t->area = NULL;
			pthread_mutex_unlock(&kc_lock);
		}
		munmap(area, KC_WORDS * sizeof(long));
		goto close_fd;
	}
	pthread_setspecific(kc_key, t);
	return;
close_fd:
	close(fd);
}

/* A thread's end: its last PCs, then its buffer is released. */
static void kc_thread_end(void *slot)
{
	struct kc_task *t = slot;
	unsigned long *area;

	pthread_mutex_lock(&kc_lock);
	kc_drain_one(t);
	area = t->area;
	t->area = NULL;
	pthread_mutex_unlock(&kc_lock);
	munmap(area, KC_WORDS * sizeof(long));
	close(t->fd);
}

static void kc_write(void)
{
	const char *dir = getenv("KCOV_COLLECT_DIR");
	char path[4096];
	unsigned long i;
	FILE *f;

	if (!kc_on || !dir)
		return;
	kc_drain_all();
	snprintf(path, sizeof(path), "%s/pcs.%d", dir, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	pthread_mutex_lock(&kc_lock);
	for (i = 0; i < KC_SET; i++)
		if (kc_set[i])
			fprintf(f, "0x%lx\n", (unsigned long)kc_set[i]);
	pthread_mutex_unlock(&kc_lock);
	fclose(f);
}

/* A new process: an empty set, its own drain thread, KCOV for its task. */
static void kc_process_start(void)
{
	pthread_t th;

	/* A fork may have copied the lock held by the parent's drain thread. */
	pthread_mutex_init(&kc_lock, NULL);
	memset(kc_tasks, 0, sizeof(kc_tasks));
	memset(kc_set, 0, KC_SET * sizeof(*kc_set));
	kc_count = 0;
	pthread_create(&th, NULL, kc_drainer, NULL);
	pthread_detach(th);
	kc_enable();
}

__attribute__((constructor)) static void kc_init(void)
{
	const char *range = getenv("KCOV_COLLECT_RANGE");
	unsigned long lo, size;

	if (!range || sscanf(range, "%lx+%lu", &lo, &size) != 2 || !size)
		return;
	kc_set = calloc(KC_SET, sizeof(*kc_set));
	if (!kc_set || pthread_key_create(&kc_key, kc_thread_end))
		return;
	kc_lo = lo;
	kc_hi = lo + size;
	kc_on = 1;
	atexit(kc_write);
	kc_process_start();
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

	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	if (!kc_on || fn == kc_drainer)
		return real(th, attr, fn, arg);
	s = malloc(sizeof(*s));
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	return real(th, attr, kc_trampoline, s);
}

pid_t fork(void)
{
	static pid_t (*real)(void);
	pid_t pid;

	if (!real)
		real = dlsym(RTLD_NEXT, "fork");
	pid = real();
	if (pid == 0 && kc_on)
		kc_process_start();
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
