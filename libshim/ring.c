// SPDX-License-Identifier: MIT
/*
 * libweave: shared submission rings: create and map, destroy, doorbell;
 * and the completion area.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave.h"
#include "private.h"

/* Maps @size bytes of @fd at @offset read-only: what only the kernel writes. */
static void *shim_map_ro(int fd, size_t size, uint64_t offset)
{
	return mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)offset);
}

WEAVE_PUBLIC int weave_ring_create(int fd, uint32_t stream, uint32_t units,
				   struct weave_ring *ring)
{
	return weave_ring_create_flags(fd, stream, units, 0, ring);
}

WEAVE_PUBLIC int weave_ring_create_flags(int fd, uint32_t stream,
					 uint32_t units, uint32_t flags,
					 struct weave_ring *ring)
{
	struct drm_weave_ring_create args = {
		.stream = stream, .flags = flags, .units = units,
	};
	struct drm_weave_ring_destroy d = { 0 };
	void *hdr, *sq;
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_RING_CREATE, &args);
	if (ret)
		return ret;
	hdr = shim_map_ro(fd, args.header_size, args.header_offset);
	sq = hdr == MAP_FAILED ? MAP_FAILED :
	     mmap(NULL, args.sq_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  (off_t)args.sq_offset);
	if (sq == MAP_FAILED) {
		ret = -errno;
		if (hdr != MAP_FAILED)
			munmap(hdr, args.header_size);
		d.ring = args.ring;
		shim_ioctl(fd, DRM_IOCTL_WEAVE_RING_DESTROY, &d);
		return ret;
	}
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->ring = args.ring;
	ring->stream = stream;
	ring->units = units;
	ring->hdr = hdr;
	ring->sq = sq;
	ring->descs = (uint8_t *)sq + DRM_WEAVE_RING_SQ_DESCS;
	ring->sq_size = args.sq_size;
	ring->tail = weave_ring_head(ring);
	return 0;
}

WEAVE_PUBLIC int weave_ring_destroy(struct weave_ring *ring)
{
	struct drm_weave_ring_destroy args = { .ring = ring->ring };

	munmap((void *)ring->hdr, (size_t)sysconf(_SC_PAGESIZE));
	munmap(ring->sq, ring->sq_size);
	return shim_ioctl(ring->fd, DRM_IOCTL_WEAVE_RING_DESTROY, &args);
}

/* The doorbell, with @flags and @ring as %DRM_IOCTL_WEAVE_RING_ENTER has them. */
static int shim_ring_enter(int fd, uint32_t flags, uint32_t ring,
			   uint32_t *consumed)
{
	struct drm_weave_ring_enter args = { .flags = flags, .ring = ring };
	int ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_RING_ENTER, &args);

	if (consumed)
		*consumed = args.consumed;
	return ret;
}

WEAVE_PUBLIC int weave_ring_enter(int fd, uint32_t *consumed)
{
	return shim_ring_enter(fd, 0, 0, consumed);
}

WEAVE_PUBLIC int weave_ring_resume(struct weave_ring *ring,
				   uint32_t *consumed)
{
	return shim_ring_enter(ring->fd, DRM_WEAVE_RING_ENTER_RESUME,
			       ring->ring, consumed);
}

WEAVE_PUBLIC int weave_completions_map(int fd, struct weave_completions *map)
{
	struct drm_weave_completions args = { 0 };
	int ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_COMPLETIONS, &args);
	void *p = ret ? MAP_FAILED : shim_map_ro(fd, args.size, args.offset);

	if (p == MAP_FAILED)
		return ret ? ret : -errno;
	map->fd = fd;
	map->entries = p;
	map->count = args.entries;
	map->size = args.size;
	return 0;
}

WEAVE_PUBLIC void weave_completions_unmap(struct weave_completions *map)
{
	if (map->entries)
		munmap((void *)map->entries, map->size);
	memset(map, 0, sizeof(*map));
}
