// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of buffers: BO_CREATE and GEM_CLOSE (fuzz_call.h),
 * BO_MMAP_OFFSET and mmap() of the offset, and PRIME export and import
 * between the threads' files, with mmap() of the dma-buf, while work
 * writes the buffers.  See fuzz_run.h for how a run goes and what it
 * checks.
 */
#include "fuzz_run.h"

static const int errs_mmap_offset[] = { EINVAL, ENOENT, EPERM, 0 };
static const int errs_prime_export[] = { EINVAL, ENOENT, ENOMEM, EMFILE, 0 };
static const int errs_prime_import[] = { EINVAL, EBADF, ENOMEM, ENOSPC, 0 };

static const struct fz_field fz_mmap_offset_fields[] = {
	FZ_FIELD(mmap_offset, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(mmap_offset, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static void gen_mmap_offset(struct fz_ctx *c)
{
	struct drm_weave_bo_mmap_offset *a = &c->call.arg.mmap_offset;
	int i = fz_pick_bo(c);

	a->handle = i < 0 ? fz_any_handle(c) : c->bo[i].handle;
	a->offset = fz_r(c);
	c->call.idx = i;
	c->call.strict = i >= 0 && c->call.mode == FZ_VALID &&
			 !(c->bo[i].flags & DRM_WEAVE_BO_NO_MMAP);
	FZ_MUT_FIELDS(c, fz_mmap_offset_fields, true);
	fz_detail(c, "handle %u", a->handle);
}

static void check_mmap_offset(struct fz_ctx *c, int ret)
{
	struct drm_weave_bo_mmap_offset *a = &c->call.arg.mmap_offset;
	struct fz_bo *bo = c->call.idx >= 0 ? &c->bo[c->call.idx] : NULL;
	size_t len;
	void *map;

	if (!bo || c->shared || !bo->exact || c->call.mode != FZ_VALID ||
	    c->call.argplace != FZ_PLACE_RW)
		return;
	if (bo->flags & DRM_WEAVE_BO_NO_MMAP) {
		if (ret != -EPERM)
			fz_fail(c, "MMAP_OFFSET of a NO_MMAP buffer returned %s, not EPERM",
				fz_errname(-ret));
		return;
	}
	if (ret)
		return;
	if (!a->offset || a->offset & (fz.page - 1)) {
		fz_fail(c, "MMAP_OFFSET returned offset %#llx",
			(unsigned long long)a->offset);
		return;
	}
	if (!fz_one_in(c, 3))
		return;
	/* A mapping of at most the buffer works; a longer one is refused. */
	if (fz_one_in(c, 4)) {
		len = bo->size + fz_range(c, 1, 4) * fz.page;
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, c->fd, a->offset);
		if (map != MAP_FAILED || errno != EINVAL)
			fz_fail(c, "mmap of %zu bytes of a %llu-byte buffer: %s",
				len, (unsigned long long)bo->size,
				map == MAP_FAILED ? strerror(errno) : "mapped");
		if (map != MAP_FAILED)
			munmap(map, len);
		return;
	}
	len = fz_range(c, 1, bo->size / fz.page) * fz.page;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		   a->offset);
	if (map == MAP_FAILED) {
		fz_fail(c, "mmap of %zu bytes of a %llu-byte buffer: %s", len,
			(unsigned long long)bo->size, strerror(errno));
		return;
	}
	/* Reading is all: the engine may be writing the buffer. */
	c->sink += ((uint8_t *)map)[0] + ((uint8_t *)map)[len - 1];
	munmap(map, len);
}

static void gen_prime_export(struct fz_ctx *c)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	int i = fz_pick_bo(c);

	a->handle = i < 0 ? fz_any_handle(c) : c->bo[i].handle;
	a->flags = (uint32_t)fz_below(c, 4) == 0 ? DRM_CLOEXEC :
		   DRM_CLOEXEC | (fz_below(c, 2) ? DRM_RDWR : 0);
	a->fd = (int)fz_r(c);
	c->call.idx = i;
	c->call.strict = i >= 0 && c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->flags |= 1u << fz_below(c, 32);
			if (!(a->flags & ~(DRM_CLOEXEC | DRM_RDWR)))
				a->flags |= 1;
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, false);
			break;
		}
	}
	fz_detail(c, "handle %u flags %#x", a->handle, a->flags);
}

/*
 * mmap() of a dma-buf: refused for NO_MMAP buffers, with EPERM.  Only for
 * reading: a buffer has one dma-buf file, made at its first export, so a
 * later export with DRM_RDWR may still give a read-only file.
 */
static void fz_check_dmabuf_mmap(struct fz_ctx *c, int fd,
				 const struct fz_bo *bo)
{
	void *map = mmap(NULL, fz.page, PROT_READ, MAP_SHARED, fd, 0);
	int err = map == MAP_FAILED ? errno : 0;

	if (map != MAP_FAILED)
		munmap(map, fz.page);
	if (bo->flags & DRM_WEAVE_BO_NO_MMAP) {
		if (err != EPERM)
			fz_fail(c, "mmap of a dma-buf of a NO_MMAP buffer: %s, not EPERM",
				err ? fz_errname(err) : "mapped");
	} else if (err) {
		fz_fail(c, "mmap of a dma-buf: %s", fz_errname(err));
	}
}

static void check_prime_export(struct fz_ctx *c, int ret)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	int i = c->call.idx;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (a->fd < 0) {
		fz_fail(c, "PRIME_HANDLE_TO_FD returned fd %d", a->fd);
		return;
	}
	if (i >= 0 && c->bo[i].handle == a->handle && c->bo[i].exact &&
	    !c->shared && fz_one_in(c, 4))
		fz_check_dmabuf_mmap(c, a->fd, &c->bo[i]);
	fz_share_dmabuf(c, a->fd);
}

static void gen_prime_import(struct fz_ctx *c)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	uint64_t size = 0;

	a->fd = fz_pick_dmabuf(c, &size);
	a->flags = (uint32_t)fz_r(c);
	a->handle = (uint32_t)fz_r(c);
	c->call.v[0] = size;
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->fd = fz_below(c, 2) ? -1 : 1 << 20;
			fz_mut(c, "fd not open", true);
			break;
		case 1:
			a->fd = c->fd;
			if (fz_below(c, 2) && fz_pick_fd(c, FZ_FD_SYNCOBJ) >= 0)
				a->fd = fz_pick_fd(c, FZ_FD_SYNCOBJ);
			fz_mut(c, "fd not a dma-buf", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "fd %d", a->fd);
}

static void check_prime_import(struct fz_ctx *c, int ret)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	uint64_t size = c->call.v[0];

	if (ret || c->call.argplace != FZ_PLACE_RW || !a->handle)
		return;
	if (fz_find_bo(c, a->handle) >= 0 || !size)
		return;
	if (c->nbo == FZ_BOS || c->live_bytes + size > FZ_LIVE_BYTES) {
		fz_close_bo(c, a->handle);
		return;
	}
	/* The descriptor may have been swapped under us: size uncertain. */
	c->bo[c->nbo++] = (struct fz_bo){
		.handle = a->handle, .size = size, .exact = false,
	};
	c->live_bytes += size;
}

static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(80, 20, 10),
	[OP_MMAP_OFFSET] = { "BO_MMAP_OFFSET", DRM_IOCTL_WEAVE_BO_MMAP_OFFSET,
			     errs_mmap_offset, 60, gen_mmap_offset,
			     check_mmap_offset },
	[OP_PRIME_EXPORT] = { "PRIME_HANDLE_TO_FD",
			      DRM_IOCTL_PRIME_HANDLE_TO_FD, errs_prime_export,
			      40, gen_prime_export, check_prime_export },
	[OP_PRIME_IMPORT] = { "PRIME_FD_TO_HANDLE",
			      DRM_IOCTL_PRIME_FD_TO_HANDLE, errs_prime_import,
			      40, gen_prime_import, check_prime_import },
};

FZ_TESTS(NULL)
