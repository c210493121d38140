// SPDX-License-Identifier: GPL-2.0
/*
 * weave: shaders, a file's SPIR-V modules: made and dropped, every way
 * SHADER_CREATE and SHADER_DESTROY can be misused refused with its errno
 * and nothing made, and a file's bounds on shaders and bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_test_spirv.h"

WEAVE_TEST_FIXTURE(shader, 13u);

/* SHADER_CREATE of @m naming @names; the errno, the handle in @handle. */
static int create(int fd, const struct weave_test_spirv *m,
		  const char *const *names, uint32_t n, uint32_t *handle)
{
	return weave_shader_create(fd, m->w, m->n * 4, names, n, handle);
}

/* The raw ioctl, for arguments libweave would not make. */
static int create_raw(int fd, struct drm_weave_shader_create *args)
{
	return weave_ioctl(fd, DRM_IOCTL_WEAVE_SHADER_CREATE, args);
}

static void assert_shaders(struct __test_metadata *_metadata, int fd,
			   uint64_t n, uint64_t bytes)
{
	struct drm_weave_client_usage u = weave_test_client_usage(_metadata,
								  fd);

	ASSERT_EQ(n, u.shaders);
	ASSERT_EQ(bytes, u.shader_bytes);
}

TEST_F(shader, limits_are_reported)
{
	EXPECT_EQ(4u << 20, self->info.max_shader_bytes);
	EXPECT_EQ(16u, self->info.max_shader_entries);
	EXPECT_EQ(256u, self->info.max_client_shaders);
	EXPECT_EQ(64ull << 20, self->info.max_client_shader_bytes);
}

TEST_F(shader, create_counts_and_destroy_gives_back)
{
	static const char *const both[] = { "scan_pass2", "main" };
	static const char *const one[] = { "main" };
	struct weave_test_spirv m;
	uint32_t a = 0, b = 0;

	weave_test_spirv_module(&m);
	assert_shaders(_metadata, self->fd, 0, 0);
	ASSERT_EQ(0, create(self->fd, &m, one, 1, &a));
	ASSERT_NE(0u, a);
	ASSERT_EQ(0, create(self->fd, &m, both, 2, &b));
	ASSERT_NE(0u, b);
	ASSERT_NE(a, b);
	assert_shaders(_metadata, self->fd, 2, 2 * 4 * m.n);
	ASSERT_EQ(0, weave_shader_destroy(self->fd, a));
	assert_shaders(_metadata, self->fd, 1, 4 * m.n);
	EXPECT_EQ(-ENOENT, weave_shader_destroy(self->fd, a));
	ASSERT_EQ(0, weave_shader_destroy(self->fd, b));
	assert_shaders(_metadata, self->fd, 0, 0);
	EXPECT_EQ(-ENOENT, weave_shader_destroy(self->fd, 0));
}

TEST_F(shader, handles_are_the_files_own)
{
	static const char *const one[] = { "main" };
	struct weave_test_spirv m;
	int other = weave_test_open(_metadata);
	uint32_t a;

	weave_test_spirv_module(&m);
	ASSERT_EQ(0, create(self->fd, &m, one, 1, &a));
	EXPECT_EQ(-ENOENT, weave_shader_destroy(other, a));
	assert_shaders(_metadata, other, 0, 0);
	close(other);
	ASSERT_EQ(0, weave_shader_destroy(self->fd, a));
}

TEST_F(shader, bad_modules_are_refused)
{
	static const char *const one[] = { "main" };
	static const struct {
		uint32_t word, value;
		int err;
	} hdr[] = {
		{ 0, 0x03022307, -EINVAL },	/* the other byte order */
		{ 1, 0x00010700, -EINVAL },	/* SPIR-V 1.7 */
		{ 3, 0, -EINVAL },		/* id bound */
		{ 4, 1, -EINVAL },		/* schema */
		{ 5, 0x00000011, -EINVAL },	/* a zero word count */
		{ 5, 0x00ff0011, -EINVAL },	/* past the end */
	};
	struct weave_test_spirv m;
	uint32_t *odd, h = 0;
	size_t i;

	for (i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++) {
		weave_test_spirv_module(&m);
		m.w[hdr[i].word] = hdr[i].value;
		EXPECT_EQ(hdr[i].err, create(self->fd, &m, one, 1, &h))
			TH_LOG("word %u = %#x", hdr[i].word, hdr[i].value);
	}
	weave_test_spirv_module(&m);
	EXPECT_EQ(-EINVAL, weave_shader_create(self->fd, m.w, 4 * m.n - 2,
					       one, 1, &h));
	EXPECT_EQ(-EINVAL, weave_shader_create(self->fd, m.w, 16, one, 1, &h));
	EXPECT_EQ(-EINVAL, weave_shader_create(self->fd, m.w, 0, one, 1, &h));
	/* Not 4-byte aligned, though whole. */
	odd = malloc(4 * m.n + 4);
	ASSERT_NE(NULL, odd);
	memcpy((char *)odd + 2, m.w, 4 * m.n);
	EXPECT_EQ(-EINVAL, weave_shader_create(self->fd, (char *)odd + 2,
					       4 * m.n, one, 1, &h));
	free(odd);
	EXPECT_EQ(-EFAULT, weave_shader_create(self->fd, NULL, 4 * m.n, one, 1,
					       &h));
	assert_shaders(_metadata, self->fd, 0, 0);
}

TEST_F(shader, entry_points_must_be_compute_entry_points_of_the_module)
{
	static const char *const vert[] = { "vert" };
	static const char *const absent[] = { "main", "nope" };
	static const char *const prefix[] = { "mai" };
	static const char *const dup[] = { "main", "main" };
	static const char *const empty[] = { "" };
	struct weave_test_spirv m;
	uint32_t h = 0;

	weave_test_spirv_module(&m);
	EXPECT_EQ(-ENOENT, create(self->fd, &m, vert, 1, &h));
	EXPECT_EQ(-ENOENT, create(self->fd, &m, absent, 2, &h));
	EXPECT_EQ(-ENOENT, create(self->fd, &m, prefix, 1, &h));
	EXPECT_EQ(-EINVAL, create(self->fd, &m, dup, 2, &h));
	EXPECT_EQ(-EINVAL, create(self->fd, &m, empty, 1, &h));
	EXPECT_EQ(-EINVAL, create(self->fd, &m, NULL, 0, &h));
	assert_shaders(_metadata, self->fd, 0, 0);
}

TEST_F(shader, entry_arrays_are_checked)
{
	struct drm_weave_shader_entry e[17];
	struct drm_weave_shader_create args;
	struct weave_test_spirv m;
	char wide[2][72];
	unsigned int i;

	weave_test_spirv_module(&m);
	memset(e, 0, sizeof(e));
	for (i = 0; i < 17; i++)
		strcpy(e[i].name, "main");
	memset(&args, 0, sizeof(args));
	args.code = (uintptr_t)m.w;
	args.code_size = 4 * m.n;
	args.entries.ptr = (uintptr_t)e;
	args.entries.stride = sizeof(e[0]);
	args.entries.count = 1;
	ASSERT_EQ(0, create_raw(self->fd, &args));
	ASSERT_EQ(0, weave_shader_destroy(self->fd, args.shader));

	args.flags = 1;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	args.flags = 0;
	args.pad = 1;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	args.pad = 0;
	/* More than max_shader_entries (the duplicates are not reached). */
	args.entries.count = self->info.max_shader_entries + 1;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	args.entries.count = 1;
	args.entries.stride = sizeof(e[0]) - 8;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	args.entries.stride = DRM_WEAVE_MAX_STRIDE + 8;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	/* A name of 64 bytes and no NUL. */
	args.entries.stride = sizeof(e[0]);
	memset(e[0].name, 'a', sizeof(e[0].name));
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	/* Bytes after the NUL. */
	memset(e[0].name, 0, sizeof(e[0].name));
	strcpy(e[0].name, "main");
	e[0].name[40] = 'x';
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	e[0].name[40] = 0;
	args.entries.ptr = 8;
	EXPECT_EQ(-EFAULT, create_raw(self->fd, &args));

	/* A longer stride: its extra bytes must be zero. */
	memset(wide, 0, sizeof(wide));
	strcpy(wide[0], "main");
	strcpy(wide[1], "scan_pass2");
	args.entries.ptr = (uintptr_t)wide;
	args.entries.stride = sizeof(wide[0]);
	args.entries.count = 2;
	ASSERT_EQ(0, create_raw(self->fd, &args));
	ASSERT_EQ(0, weave_shader_destroy(self->fd, args.shader));
	wide[1][68] = 1;
	EXPECT_EQ(-EINVAL, create_raw(self->fd, &args));
	assert_shaders(_metadata, self->fd, 0, 0);
}

TEST_F(shader, destroy_args_are_checked)
{
	struct drm_weave_shader_destroy d = { .shader = 1, .pad = 1 };

	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_SHADER_DESTROY,
				       &d));
}

/*
 * A module of @words words: the small one, then OpNops up to the size;
 * freed by the caller.
 */
static uint32_t *big_module(uint32_t words)
{
	struct weave_test_spirv m;
	uint32_t *w = malloc((size_t)words * 4), i;

	if (!w)
		return NULL;
	weave_test_spirv_module(&m);
	memcpy(w, m.w, 4 * m.n);
	for (i = m.n; i < words; i++)
		w[i] = (1u << 16) | WEAVE_TEST_SPIRV_OP_NOP;
	return w;
}

TEST_F(shader, a_module_past_max_shader_bytes_is_refused)
{
	static const char *const one[] = { "main" };
	uint32_t max = self->info.max_shader_bytes, h;
	uint32_t *w = big_module(max / 4 + 1);

	ASSERT_NE(NULL, w);
	EXPECT_EQ(-E2BIG, weave_shader_create(self->fd, w, max + 4, one, 1,
					      &h));
	ASSERT_EQ(0, weave_shader_create(self->fd, w, max, one, 1, &h));
	assert_shaders(_metadata, self->fd, 1, max);
	free(w);
}

TEST_F(shader, a_file_holds_max_client_shaders)
{
	static const char *const one[] = { "main" };
	struct weave_test_spirv m;
	uint32_t i, h, first = 0;

	weave_test_spirv_module(&m);
	for (i = 0; i < self->info.max_client_shaders; i++) {
		ASSERT_EQ(0, create(self->fd, &m, one, 1, &h));
		if (!first)
			first = h;
	}
	EXPECT_EQ(-EDQUOT, create(self->fd, &m, one, 1, &h));
	assert_shaders(_metadata, self->fd, self->info.max_client_shaders,
		       4ull * m.n * self->info.max_client_shaders);
	ASSERT_EQ(0, weave_shader_destroy(self->fd, first));
	EXPECT_EQ(0, create(self->fd, &m, one, 1, &h));
}

TEST_F(shader, a_file_holds_max_client_shader_bytes)
{
	static const char *const one[] = { "main" };
	uint32_t max = self->info.max_shader_bytes, h, first = 0;
	uint64_t n = self->info.max_client_shader_bytes / max, i;
	uint32_t *w = big_module(max / 4);
	struct weave_test_spirv m;

	ASSERT_NE(NULL, w);
	weave_test_spirv_module(&m);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, weave_shader_create(self->fd, w, max, one, 1, &h));
		if (!first)
			first = h;
	}
	EXPECT_EQ(-EDQUOT, create(self->fd, &m, one, 1, &h)) {
		TH_LOG("even a small module must not pass the bytes' bound");
	}
	assert_shaders(_metadata, self->fd, n, n * max);
	ASSERT_EQ(0, weave_shader_destroy(self->fd, first));
	EXPECT_EQ(0, weave_shader_create(self->fd, w, max, one, 1, &h));
	free(w);
}

TEST_HARNESS_MAIN
