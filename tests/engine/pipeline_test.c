// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the executor's pipelines: each shader builds and is kept in
 * memory, and every module the engine must not run is refused with -EINVAL
 * and a reason, never a crash: broken bytes, an unknown entry point, a
 * binding or push-constant block its layout lacks, a workgroup past the
 * device's limits, a physical pointer, and random corruptions.
 */
#include "wvk_test.h"

FIXTURE(pipe) {
	struct wvk_device *dev;
	uint32_t *spv;		/* saxpy's words */
	size_t size;
};

FIXTURE_SETUP(pipe)
{
	self->dev = wvk_test_device(false);
	ASSERT_NE(NULL, self->dev);
	self->spv = wvk_test_spirv("saxpy", &self->size);
	ASSERT_NE(NULL, self->spv);
	ASSERT_LT(64u, self->size);
}

FIXTURE_TEARDOWN(pipe)
{
	EXPECT_EQ(0, wvk_device_destroy(self->dev));
	free(self->spv);
}

/* wvk_pipeline_get() of @words; its error, its message checked. */
static int get(FIXTURE_DATA(pipe) *self, const void *words, size_t size,
	       const char *entry, uint32_t nbindings)
{
	struct wvk_pipeline *p = NULL;
	int ret = wvk_pipeline_get(self->dev, words, size, entry, nbindings,
				   &p);

	if (ret && !*wvk_error())
		return -1000;	/* a refusal must say why */
	if (ret)
		fprintf(stderr, "# refused: %s\n", wvk_error());
	return ret;
}

/* A module of build/engine/shaders, refused for @why. */
static int get_shader(FIXTURE_DATA(pipe) *self, const char *name,
		      uint32_t nbindings, const char *why)
{
	size_t size = 0;
	void *spv = wvk_test_spirv(name, &size);
	int ret;

	if (!spv)
		return -2000;
	ret = get(self, spv, size, "main", nbindings);
	free(spv);
	if (ret && why && !strstr(wvk_error(), why))
		return -3000;
	return ret;
}

TEST_F(pipe, every_shader_builds_and_is_kept)
{
	struct wvk_pipeline *a = NULL, *b = NULL, *c = NULL;

	EXPECT_EQ(0, get_shader(self, "scan", 2, NULL));
	EXPECT_EQ(0, get_shader(self, "scan_add", 2, NULL));
	EXPECT_EQ(0, get_shader(self, "checksum", 2, NULL));
	EXPECT_EQ(0, get_shader(self, "spin", 1, NULL));
	ASSERT_EQ(0, wvk_pipeline_get(self->dev, self->spv, self->size, "main",
				      2, &a));
	/* Same bytes from another copy: the same pipeline. */
	uint32_t *copy = malloc(self->size);

	ASSERT_NE(NULL, copy);
	memcpy(copy, self->spv, self->size);
	ASSERT_EQ(0, wvk_pipeline_get(self->dev, copy, self->size, "main", 2,
				      &b));
	EXPECT_EQ(a, b);
	/* Another binding count is another layout. */
	ASSERT_EQ(0, wvk_pipeline_get(self->dev, copy, self->size, "main", 3,
				      &c));
	EXPECT_NE(a, c);
	free(copy);
}

TEST_F(pipe, broken_bytes_are_refused)
{
	size_t n = self->size / 4;
	uint32_t *w = malloc(self->size);
	unsigned char *bytes = (unsigned char *)w;
	size_t i;

	ASSERT_NE(NULL, w);
	/* Bad magic, and the other byte order. */
	memcpy(w, self->spv, self->size);
	w[0] = 0x12345678;
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	EXPECT_NE(NULL, strstr(wvk_error(), "magic"));
	for (i = 0; i < n; i++)
		w[i] = __builtin_bswap32(self->spv[i]);
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	EXPECT_NE(NULL, strstr(wvk_error(), "byte order"));
	/* Truncated: within the header, in the middle, a word short. */
	memcpy(w, self->spv, self->size);
	EXPECT_EQ(-EINVAL, get(self, w, 16, "main", 2));
	EXPECT_EQ(-EINVAL, get(self, w, self->size / 8 * 4, "main", 2));
	EXPECT_EQ(-EINVAL, get(self, w, self->size - 4, "main", 2));
	/* Not whole words, none at all. */
	EXPECT_EQ(-EINVAL, get(self, w, self->size - 1, "main", 2));
	EXPECT_EQ(-EINVAL, get(self, w, 0, "main", 2));
	EXPECT_EQ(-EINVAL, get(self, NULL, self->size, "main", 2));
	/* A valid header, then an invalid body. */
	for (i = 5; i < n; i++)
		w[i] = 0xdeadbeef ^ (uint32_t)i;
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	EXPECT_NE(NULL, strstr(wvk_error(), "invalid SPIR-V"));
	/* An instruction's word count past the end. */
	memcpy(w, self->spv, self->size);
	w[5] = (0xffffu << 16) | (w[5] & 0xffff);
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	for (i = 0; i < self->size; i++)
		bytes[i] = (unsigned char)i;
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	free(w);
}

TEST_F(pipe, unknown_entry_points_are_refused)
{
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "mian", 2));
	EXPECT_NE(NULL, strstr(wvk_error(), "entry point"));
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "mainx", 2));
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "", 2));
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, NULL, 2));
	EXPECT_EQ(0, get(self, self->spv, self->size, "main", 2));
}

TEST_F(pipe, bindings_the_layout_lacks_are_refused)
{
	/* saxpy binds 0 and 1. */
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "main", 1));
	EXPECT_NE(NULL, strstr(wvk_error(), "binding 1"));
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "main", 0));
	EXPECT_EQ(-EINVAL, get(self, self->spv, self->size, "main",
			       WVK_BINDINGS_MAX + 1));
	EXPECT_EQ(0, get_shader(self, "set1", 1, "set 1") == -EINVAL ? 0 : 1);
	EXPECT_EQ(0, get_shader(self, "ubo", 2, "uniform buffer") == -EINVAL ?
		  0 : 1);
}

TEST_F(pipe, push_constants_past_the_bound_are_refused)
{
	EXPECT_EQ(-EINVAL, get_shader(self, "push_big", 1, "push constants"));
}

TEST_F(pipe, physical_pointers_are_refused)
{
	EXPECT_EQ(-EINVAL, get_shader(self, "bufref", 0, "capability"));
}

/* The x of saxpy's LocalSizeId constant set to @x; refused past the limit. */
TEST_F(pipe, workgroups_past_the_limits_are_refused)
{
	const struct wvk_device_info *info = wvk_device_info(self->dev);
	uint32_t *w = malloc(self->size), xid = 0, x = 0;
	size_t n = self->size / 4, i;

	ASSERT_NE(NULL, w);
	memcpy(w, self->spv, self->size);
	for (i = 5; i < n; i += w[i] >> 16)
		if ((w[i] & 0xffff) == 331 && w[i + 2] == 38)	/* LocalSizeId */
			xid = w[i + 3];
	ASSERT_NE(0u, xid);
	for (i = 5; i < n; i += w[i] >> 16)
		if ((w[i] & 0xffff) == 43 && w[i + 2] == xid) {	/* OpConstant */
			x = (uint32_t)i + 3;
			break;
		}
	ASSERT_NE(0u, x);
	ASSERT_EQ(64u, w[x]);
	/* The constant is the size's alone in saxpy: no other use changes. */
	w[x] = info->max_group_size[0] + 1;
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	EXPECT_NE(NULL, strstr(wvk_error(), "workgroup size"));
	w[x] = 0;
	EXPECT_EQ(-EINVAL, get(self, w, self->size, "main", 2));
	w[x] = info->max_group_size[0];
	EXPECT_EQ(info->max_group_size[0] > info->max_group_invocations ?
		  -EINVAL : 0, get(self, w, self->size, "main", 2));
	free(w);
}

/* One word of the module changed at a time: an answer, never a crash. */
TEST_F(pipe, corrupted_modules_never_crash)
{
	uint32_t *w = malloc(self->size), state = 7;
	size_t n = self->size / 4, k;
	int ret, refused = 0;

	ASSERT_NE(NULL, w);
	for (k = 0; k < 300; k++) {
		size_t i;

		state = state * 1103515245u + 12345u;
		i = 5 + (state >> 8) % (n - 5);
		memcpy(w, self->spv, self->size);
		state = state * 1103515245u + 12345u;
		switch (k % 3) {
		case 0:
			w[i] ^= 1u << ((state >> 8) % 32);
			break;
		case 1:
			w[i] = state;
			break;
		default:
			w[i] = (w[i] & 0xffff0000u) | ((state >> 8) % 400);
			break;
		}
		ret = get(self, w, self->size, "main", 2);
		ASSERT_TRUE(ret == 0 || ret == -EINVAL) {
			TH_LOG("word %zu = 0x%08x: %d", i, w[i], ret);
		}
		refused += ret == -EINVAL;
	}
	/* Most corruptions break the module. */
	EXPECT_LT(150, refused);
	free(w);
}

TEST_HARNESS_MAIN
