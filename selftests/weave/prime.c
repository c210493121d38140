// SPDX-License-Identifier: GPL-2.0
/*
 * weave: sharing buffers between clients through PRIME (dma-buf), and
 * the isolation of clients that did not share.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "weave_test.h"

FIXTURE(prime) {
	int a;		/* the exporting client */
	int b;		/* the importing client */
	size_t size;	/* of the buffer most tests share */
	struct drm_weave_memory_usage base;
};

FIXTURE_SETUP(prime)
{
	self->a = weave_test_open(_metadata);
	self->b = weave_test_open(_metadata);
	self->size = 4 * (size_t)weave_test_info(_metadata, self->a).page_size;
	self->base = weave_test_usage(_metadata, self->a);
}

FIXTURE_TEARDOWN(prime)
{
	close(self->a);
	close(self->b);
}

/* Exports @handle from @fd; returns the dma-buf file descriptor. */
static int export(struct __test_metadata *_metadata, int fd, uint32_t handle)
{
	int dmabuf = -1;

	ASSERT_EQ(0, weave_bo_export(fd, handle, DRM_CLOEXEC | DRM_RDWR,
				     &dmabuf));
	ASSERT_LE(0, dmabuf);
	return dmabuf;
}

static uint32_t import(struct __test_metadata *_metadata, int fd, int dmabuf)
{
	uint32_t handle = 0;

	ASSERT_EQ(0, weave_bo_import(fd, dmabuf, &handle));
	ASSERT_NE(0u, handle);
	return handle;
}

/* Creates a buffer in A and imports it into B through a dma-buf. */
static void share(struct __test_metadata *_metadata,
		  FIXTURE_DATA(prime) *self, uint32_t *ha, uint32_t *hb)
{
	int dmabuf;

	*ha = weave_test_bo(_metadata, self->a, self->size, 0);
	dmabuf = export(_metadata, self->a, *ha);
	*hb = import(_metadata, self->b, dmabuf);
	ASSERT_EQ(0, close(dmabuf));
}

TEST_F(prime, round_trip)
{
	void *map_a, *map_b;
	uint32_t ha, hb;

	share(_metadata, self, &ha, &hb);
	map_a = weave_test_map(_metadata, self->a, ha, self->size);
	map_b = weave_test_map(_metadata, self->b, hb, self->size);

	weave_test_fill(map_a, self->size, 0xa);
	ASSERT_EQ(self->size, weave_test_check(map_b, self->size, 0xa));
	weave_test_fill(map_b, self->size, 0xb);
	ASSERT_EQ(self->size, weave_test_check(map_a, self->size, 0xb));

	weave_test_unmap(_metadata, map_a, self->size);
	weave_test_unmap(_metadata, map_b, self->size);
	weave_test_close_bo(_metadata, self->a, ha);
	weave_test_close_bo(_metadata, self->b, hb);
	weave_test_assert_usage(_metadata, self->a, &self->base, 0, 0);
}

/* An import into the same device shares the object: counted once. */
TEST_F(prime, import_shares_object)
{
	uint32_t ha, hb;

	share(_metadata, self, &ha, &hb);
	weave_test_assert_usage(_metadata, self->a, &self->base, 1,
				self->size);
	weave_test_close_bo(_metadata, self->a, ha);
	weave_test_close_bo(_metadata, self->b, hb);
	weave_test_assert_usage(_metadata, self->a, &self->base, 0, 0);
}

/* Importing back into the exporting file gives the original handle. */
TEST_F(prime, import_into_exporter_same_handle)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf = export(_metadata, self->a, ha);

	ASSERT_EQ(ha, import(_metadata, self->a, dmabuf));
	close(dmabuf);
}

/* Importing twice into one file gives the same handle twice. */
TEST_F(prime, import_twice_same_handle)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf = export(_metadata, self->a, ha);
	uint32_t hb = import(_metadata, self->b, dmabuf);

	ASSERT_EQ(hb, import(_metadata, self->b, dmabuf));
	close(dmabuf);
}

/* Exporting twice gives two fds on one dma-buf: one handle on import. */
TEST_F(prime, export_twice_same_buffer)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf1 = export(_metadata, self->a, ha);
	int dmabuf2 = export(_metadata, self->a, ha);

	ASSERT_EQ(import(_metadata, self->b, dmabuf1),
		  import(_metadata, self->b, dmabuf2));
	close(dmabuf1);
	close(dmabuf2);
}

/*
 * With the dma-buf fd and the exporter's handle closed, the import alone
 * keeps the buffer and its contents alive; closing it frees the buffer.
 */
TEST_F(prime, closed_dmabuf_keeps_object)
{
	uint32_t ha, hb;
	int dmabuf;
	void *map;

	ha = weave_test_bo(_metadata, self->a, self->size, 0);
	map = weave_test_map(_metadata, self->a, ha, self->size);
	weave_test_fill(map, self->size, 0xd);
	weave_test_unmap(_metadata, map, self->size);

	dmabuf = export(_metadata, self->a, ha);
	hb = import(_metadata, self->b, dmabuf);
	ASSERT_EQ(0, close(dmabuf));
	weave_test_close_bo(_metadata, self->a, ha);
	weave_test_assert_usage(_metadata, self->a, &self->base, 1,
				self->size);

	map = weave_test_map(_metadata, self->b, hb, self->size);
	ASSERT_EQ(self->size, weave_test_check(map, self->size, 0xd));
	weave_test_unmap(_metadata, map, self->size);
	weave_test_assert_usage(_metadata, self->a, &self->base, 1,
				self->size);

	weave_test_close_bo(_metadata, self->b, hb);
	weave_test_assert_usage(_metadata, self->a, &self->base, 0, 0);
}

/* An open dma-buf fd alone keeps the object alive. */
TEST_F(prime, dmabuf_fd_keeps_object)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf = export(_metadata, self->a, ha);

	weave_test_close_bo(_metadata, self->a, ha);
	weave_test_assert_usage(_metadata, self->a, &self->base, 1,
				self->size);
	ASSERT_EQ(0, close(dmabuf));
	weave_test_assert_usage(_metadata, self->a, &self->base, 0, 0);
}

/* DRM_WEAVE_BO_NO_MMAP belongs to the buffer, not to the handle. */
TEST_F(prime, no_mmap_survives_import)
{
	uint32_t ha, hb;
	uint64_t offset;
	int dmabuf;

	ha = weave_test_bo(_metadata, self->a, self->size,
			   DRM_WEAVE_BO_NO_MMAP);
	dmabuf = export(_metadata, self->a, ha);
	hb = import(_metadata, self->b, dmabuf);
	close(dmabuf);
	ASSERT_EQ(-EPERM, weave_bo_mmap_offset(self->b, hb, &offset));
}

/* Nor can the dma-buf of a NO_MMAP buffer be mapped directly. */
TEST_F(prime, no_mmap_dmabuf_mmap_fails)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size,
				    DRM_WEAVE_BO_NO_MMAP);
	int dmabuf = export(_metadata, self->a, ha);
	void *map;

	map = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   dmabuf, 0);
	ASSERT_EQ(MAP_FAILED, map) {
		munmap(map, self->size);
	}
	ASSERT_EQ(EPERM, errno);
	close(dmabuf);
}

/* A file that is not a dma-buf: dma_buf_get() says -EINVAL. */
TEST_F(prime, import_not_dmabuf)
{
	uint32_t handle;
	int pipefd[2];

	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(-EINVAL, weave_bo_import(self->b, pipefd[0], &handle));
	close(pipefd[0]);
	close(pipefd[1]);
}

/* The device file itself is not a dma-buf either. */
TEST_F(prime, import_device_fd)
{
	uint32_t handle;

	ASSERT_EQ(-EINVAL, weave_bo_import(self->b, self->a, &handle));
}

/* A number that is not an open file: dma_buf_get() says -EBADF. */
TEST_F(prime, import_closed_fd)
{
	uint32_t handle;
	int fd;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(-EBADF, weave_bo_import(self->b, fd, &handle));
}

TEST_F(prime, import_negative_fd)
{
	uint32_t handle;

	ASSERT_EQ(-EBADF, weave_bo_import(self->b, -1, &handle));
}

TEST_F(prime, export_bad_handle)
{
	int dmabuf;

	ASSERT_EQ(-ENOENT, weave_bo_export(self->a, WEAVE_TEST_BAD_HANDLE,
					   DRM_CLOEXEC, &dmabuf));
}

TEST_F(prime, export_unknown_flags)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf;

	ASSERT_EQ(-EINVAL, weave_bo_export(self->a, ha, 1u << 30, &dmabuf));
}

/* A handle from A means nothing in B (which has no buffers at all). */
TEST_F(prime, isolation_mmap_offset)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	uint64_t offset;

	ASSERT_EQ(-ENOENT, weave_bo_mmap_offset(self->b, ha, &offset));
}

TEST_F(prime, isolation_gem_close)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	uint64_t offset;

	ASSERT_EQ(-EINVAL, weave_bo_close(self->b, ha));
	/* And A's buffer is untouched. */
	ASSERT_EQ(0, weave_bo_mmap_offset(self->a, ha, &offset));
}

TEST_F(prime, isolation_export)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	int dmabuf;

	ASSERT_EQ(-ENOENT, weave_bo_export(self->b, ha, DRM_CLOEXEC,
					   &dmabuf));
}

/* A's mmap offset cannot be mapped through B: DRM core says -EACCES. */
TEST_F(prime, isolation_foreign_offset)
{
	uint32_t ha = weave_test_bo(_metadata, self->a, self->size, 0);
	uint64_t offset;
	void *map;

	ASSERT_EQ(0, weave_bo_mmap_offset(self->a, ha, &offset));
	map = mmap(NULL, self->size, PROT_READ, MAP_SHARED, self->b,
		   (off_t)offset);
	ASSERT_EQ(MAP_FAILED, map) {
		munmap(map, self->size);
	}
	ASSERT_EQ(EACCES, errno);
}

/* Once B imports the buffer, the same offset maps it through B too. */
TEST_F(prime, import_grants_offset)
{
	uint64_t offset_a, offset_b;
	uint32_t ha, hb;

	share(_metadata, self, &ha, &hb);
	ASSERT_EQ(0, weave_bo_mmap_offset(self->a, ha, &offset_a));
	ASSERT_EQ(0, weave_bo_mmap_offset(self->b, hb, &offset_b));
	ASSERT_EQ(offset_a, offset_b);
}

/*
 * The fences weave adds to a buffer's reservation object are weave's own,
 * never the GPU scheduler's, whose timeline names point into weave.ko: a
 * sync_file exported from the dma-buf of a buffer with pending work holds
 * only fences of driver "weave".
 */
TEST_F(prime, export_sync_file_holds_weave_fences)
{
	struct dma_buf_export_sync_file req = {
		.flags = DMA_BUF_SYNC_READ | DMA_BUF_SYNC_WRITE,
		.fd = -1,
	};
	struct sync_fence_info *fences;
	struct weave_test_gate gate;
	struct sync_file_info info;
	struct weave_test_batch b;
	struct drm_weave_sync in;
	uint32_t stream, bo, i;
	int dmabuf;

	stream = weave_test_stream(_metadata, self->a, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->a, self->size, 0);
	dmabuf = export(_metadata, self->a, bo);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->size, 0x5e);

	/* The fill waits for a gate, so its fences are pending. */
	weave_test_gate_open(_metadata, &gate, self->a);
	in = weave_sync(gate.syncobj, 0);
	ASSERT_EQ(0, weave_enqueue(self->a, stream, b.task, b.n, &in, 1, NULL));
	ASSERT_EQ(0, weave_flush(self->a, stream, NULL));

	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &req));
	ASSERT_LE(0, req.fd);

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, ioctl(req.fd, SYNC_IOC_FILE_INFO, &info));
	ASSERT_LT(0u, info.num_fences);
	EXPECT_EQ(0, info.status);	/* the fill has not run */
	weave_test_gate_pending(_metadata, self->a, &gate);
	fences = calloc(info.num_fences, sizeof(*fences));
	ASSERT_NE(NULL, fences);
	info.sync_fence_info = (uintptr_t)fences;
	ASSERT_EQ(0, ioctl(req.fd, SYNC_IOC_FILE_INFO, &info));
	for (i = 0; i < info.num_fences; i++)
		EXPECT_STREQ("weave", fences[i].driver_name);
	free(fences);

	weave_test_gate_wait(_metadata, self->a, &gate);
	weave_test_wait(_metadata, self->a, stream);
	close(req.fd);
	close(dmabuf);
}

TEST_HARNESS_MAIN
