// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the executor's device: picking it by index and name, its limits
 * and memory path, LP_NUM_THREADS as the daemon sets it, buffers that
 * cannot be registered, and the pipeline cache file, read back when it is
 * whole and ignored when it is corrupt, foreign or not the daemon's own.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <vulkan/vulkan.h>

#include "wvk_test.h"

static struct wvk_device *open_dev(struct wvk_device_opts *o, int *ret)
{
	struct wvk_device *dev = NULL;

	*ret = wvk_device_create(o, &dev);
	return dev;
}

TEST(limits_and_memory_path)
{
	struct wvk_device *dev = wvk_test_device(false);
	const struct wvk_device_info *i;

	ASSERT_NE(NULL, dev);
	i = wvk_device_info(dev);
	TH_LOG("%s (%s): path %d, host pointers aligned to %llu", i->name,
	       i->driver, i->mem_path, (unsigned long long)i->host_ptr_align);
	EXPECT_NE(0, i->name[0]);
	/* Vulkan's required minimums. */
	EXPECT_LE(65535u, i->max_group_count[0]);
	EXPECT_LE(65535u, i->max_group_count[1]);
	EXPECT_LE(65535u, i->max_group_count[2]);
	EXPECT_LE(128u, i->max_push_constants);
	EXPECT_LE(1u << 27, i->max_storage_range);
	EXPECT_LE(4u, i->max_bound_sets);
	EXPECT_LE(32u, i->max_push_descriptors);
	EXPECT_EQ(WVK_PUSH_MAX, i->push_bytes);
	EXPECT_LE(VK_API_VERSION_1_2, i->api_version);
	EXPECT_EQ((int)(i->has_dmabuf ? WVK_MEM_DMABUF :
			i->has_host_ptr ? WVK_MEM_HOST_PTR : WVK_MEM_STAGING),
		  (int)i->mem_path);
	EXPECT_EQ(i->has_host_ptr, i->host_ptr_align != 0);
	/* lavapipe, as Debian 12 ships it: pointers, not dma-bufs. */
	if (i->is_lavapipe) {
		EXPECT_TRUE(i->has_host_ptr);
		EXPECT_FALSE(i->has_dmabuf);
		EXPECT_EQ(4096u, i->host_ptr_align);
	}
	EXPECT_EQ(0, wvk_device_destroy(dev));
	EXPECT_EQ(0, wvk_device_destroy(NULL));
}

TEST(picked_by_index_and_by_name)
{
	struct wvk_device_opts o = { .index = -1 };
	struct wvk_device *dev, *again;
	char name[256];
	int ret;

	dev = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	/* The name's first word, and the index it has. */
	snprintf(name, sizeof(name), "%s", wvk_device_info(dev)->name);
	name[strcspn(name, " ")] = '\0';
	o.name = name;
	again = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(wvk_device_info(dev)->index, wvk_device_info(again)->index);
	EXPECT_EQ(0, wvk_device_destroy(again));
	o.index = (int)wvk_device_info(dev)->index;
	again = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, wvk_device_destroy(again));
	EXPECT_EQ(0, wvk_device_destroy(dev));

	o.name = "no such device";
	o.index = -1;
	EXPECT_EQ(NULL, open_dev(&o, &ret));
	EXPECT_EQ(-ENODEV, ret);
	EXPECT_NE(NULL, strstr(wvk_error(), "no such device"));
	o.name = NULL;
	o.index = 1000;
	EXPECT_EQ(NULL, open_dev(&o, &ret));
	EXPECT_EQ(-ENODEV, ret);
}

TEST(staging_when_asked)
{
	struct wvk_device *dev = wvk_test_device(true);

	ASSERT_NE(NULL, dev);
	EXPECT_EQ((int)WVK_MEM_STAGING, (int)wvk_device_info(dev)->mem_path);
	EXPECT_FALSE(wvk_device_info(dev)->has_host_ptr);
	EXPECT_EQ(0, wvk_device_destroy(dev));
}

/* The daemon's rule: LP_NUM_THREADS=0 unless the user set it. */
TEST(lp_num_threads_as_the_daemon_sets_it)
{
	struct wvk_device_opts o = { .index = -1 };
	struct wvk_device *dev;
	int ret;

	unsetenv("LP_NUM_THREADS");
	o.lp_num_threads = WVK_LP_THREADS_KEEP;
	dev = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(NULL, getenv("LP_NUM_THREADS"));
	EXPECT_EQ(0, wvk_device_destroy(dev));

	o.lp_num_threads = WVK_LP_THREADS_DAEMON;
	dev = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_NE(NULL, getenv("LP_NUM_THREADS"));
	EXPECT_STREQ("0", getenv("LP_NUM_THREADS"));
	EXPECT_EQ(0, wvk_device_destroy(dev));

	setenv("LP_NUM_THREADS", "3", 1);
	dev = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ("3", getenv("LP_NUM_THREADS"));
	EXPECT_EQ(0, wvk_device_destroy(dev));

	o.lp_num_threads = 1;
	dev = open_dev(&o, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_STREQ("1", getenv("LP_NUM_THREADS"));
	EXPECT_EQ(0, wvk_device_destroy(dev));
}

TEST(regions_that_cannot_be_registered)
{
	struct wvk_device *dev = wvk_test_device(false);
	struct wvk_buffer *b = NULL;
	size_t size;
	char *r = wvk_test_region(3 * WVK_PAGE, &size);

	ASSERT_NE(NULL, dev);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(-EINVAL, wvk_buffer_register(dev, r + 64, WVK_PAGE, &b));
	EXPECT_NE(NULL, strstr(wvk_error(), "not aligned"));
	EXPECT_EQ(-EINVAL, wvk_buffer_register(dev, r + WVK_PAGE / 2,
					       WVK_PAGE, &b));
	EXPECT_EQ(-EINVAL, wvk_buffer_register(dev, r, WVK_PAGE + 4, &b));
	EXPECT_EQ(-EINVAL, wvk_buffer_register(dev, r, 0, &b));
	EXPECT_EQ(-EINVAL, wvk_buffer_register(dev, NULL, WVK_PAGE, &b));
	EXPECT_EQ(NULL, b);
	ASSERT_EQ(0, wvk_buffer_register(dev, r, 2 * WVK_PAGE, &b));
	/* A buffer alive keeps the device. */
	EXPECT_EQ(-EBUSY, wvk_device_destroy(dev));
	EXPECT_EQ(0, wvk_buffer_free(b));
	EXPECT_EQ(0, wvk_buffer_free(NULL));
	EXPECT_EQ(0, wvk_device_destroy(dev));
}

TEST(dmabufs_only_where_the_device_imports_them)
{
	struct wvk_device *dev = wvk_test_device(false);
	struct wvk_buffer *b = NULL;
	int fd;

	ASSERT_NE(NULL, dev);
	fd = open("/dev/null", O_RDONLY);
	ASSERT_LE(0, fd);
	if (wvk_device_info(dev)->has_dmabuf) {
		/* /dev/null is no dma-buf. */
		EXPECT_EQ(-EINVAL, wvk_buffer_import_dmabuf(dev, fd, 4096, &b));
	} else {
		EXPECT_EQ(-EOPNOTSUPP,
			  wvk_buffer_import_dmabuf(dev, fd, 4096, &b));
	}
	EXPECT_EQ(NULL, b);
	/* Refused: the fd is still the caller's. */
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0, wvk_device_destroy(dev));
}

/* --- the pipeline cache file --------------------------------------------------- */

FIXTURE(cache) {
	char dir[64];
	char file[PATH_MAX];
	struct wvk_device_opts o;
};

FIXTURE_SETUP(cache)
{
	struct wvk_device *dev = NULL;
	struct wvk_pipeline *p;
	char cmd[160];
	FILE *ls;

	snprintf(self->dir, sizeof(self->dir), "/tmp/wvk-cache-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	self->o = (struct wvk_device_opts) { .index = -1,
					     .cache_dir = self->dir };
	ASSERT_EQ(0, wvk_device_create(&self->o, &dev));
	EXPECT_FALSE(wvk_device_info(dev)->cache_loaded);
	p = wvk_test_pipeline(dev, "saxpy", 2);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, wvk_device_destroy(dev));
	/* The one file it wrote. */
	snprintf(cmd, sizeof(cmd), "ls %s/wvk-*.cache", self->dir);
	ls = popen(cmd, "r");
	ASSERT_NE(NULL, ls);
	ASSERT_NE(NULL, fgets(self->file, sizeof(self->file), ls));
	self->file[strcspn(self->file, "\n")] = '\0';
	pclose(ls);
}

FIXTURE_TEARDOWN(cache)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Whether a device opened now reads the file; it works either way. */
static int loaded(struct __test_metadata *_metadata,
		  FIXTURE_DATA(cache) *self)
{
	struct wvk_device *dev = NULL;
	int was;

	EXPECT_EQ(0, wvk_device_create(&self->o, &dev));
	if (!dev)
		return -1;
	was = wvk_device_info(dev)->cache_loaded;
	EXPECT_NE(NULL, wvk_test_pipeline(dev, "saxpy", 2));
	EXPECT_EQ(0, wvk_device_destroy(dev));
	return was;
}

/* Byte @at of the file changed to @to; its mode kept. */
static void poke(struct __test_metadata *_metadata, const char *file,
		 long at, int to)
{
	FILE *f = fopen(file, "r+b");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, at, at < 0 ? SEEK_END : SEEK_SET));
	ASSERT_EQ(to, fputc(to, f));
	ASSERT_EQ(0, fclose(f));
}

TEST_F(cache, read_back_whole)
{
	struct stat st;

	ASSERT_EQ(0, stat(self->file, &st));
	EXPECT_EQ(0600u, st.st_mode & 0777);
	EXPECT_NE(NULL, strstr(self->file, "/wvk-"));
	EXPECT_EQ(1, loaded(_metadata, self));
}

TEST_F(cache, corrupt_driver_data_is_ignored)
{
	/* The last byte: the driver's data, under the engine's hash. */
	poke(_metadata, self->file, -1, 0x5a);
	EXPECT_EQ(0, loaded(_metadata, self));
	/* The device wrote a good one over it. */
	EXPECT_EQ(1, loaded(_metadata, self));
}

TEST_F(cache, truncated_file_is_ignored)
{
	struct stat st;

	ASSERT_EQ(0, stat(self->file, &st));
	ASSERT_EQ(0, truncate(self->file, st.st_size - 1));
	EXPECT_EQ(0, loaded(_metadata, self));
	ASSERT_EQ(0, truncate(self->file, 10));
	EXPECT_EQ(0, loaded(_metadata, self));
}

TEST_F(cache, foreign_device_or_driver_is_ignored)
{
	/* The engine's header: magic (0), driver version (20), UUID (24). */
	poke(_metadata, self->file, 0, 'X');
	EXPECT_EQ(0, loaded(_metadata, self));
	poke(_metadata, self->file, 20, 0x77);
	EXPECT_EQ(0, loaded(_metadata, self));
	poke(_metadata, self->file, 24, 0x77);
	EXPECT_EQ(0, loaded(_metadata, self));
}

TEST_F(cache, file_others_may_write_is_not_trusted)
{
	ASSERT_EQ(0, chmod(self->file, 0666));
	EXPECT_EQ(0, loaded(_metadata, self));
	/* Rewritten as the daemon's own. */
	EXPECT_EQ(1, loaded(_metadata, self));
}

TEST_HARNESS_MAIN
