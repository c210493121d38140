// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: shaders, the SPIR-V modules of a client's own kernels: making
 * one from user bytes within its file's bounds, and dropping it.  See
 * "DOC: shaders" in the uAPI.
 */

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_client.h"
#include "weave_drm.h"
#include "weave_shader.h"
#include "weave_uarray.h"

static_assert(sizeof(struct weave_spirv_name) ==
	      sizeof(struct drm_weave_shader_entry));

/**
 * weave_shaders_init() - Set up a client's shaders: none.
 * @c: The client, being made.
 */
void weave_shaders_init(struct weave_client *c)
{
	xa_init_flags(&c->shaders, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
}

static void weave_shader_free(struct weave_shader *sh)
{
	if (!sh)
		return;
	kvfree(sh->code);
	kfree(sh);
}

/**
 * weave_shaders_fini() - Free every shader of a client.
 * @c: The client, at close.
 *
 * Context: The client's mutex held.
 */
void weave_shaders_fini(struct weave_client *c)
{
	struct weave_shader *sh;
	unsigned long idx;

	xa_for_each(&c->shaders, idx, sh)
		weave_shader_free(sh);
	xa_destroy(&c->shaders);
	c->nshaders = 0;
	c->shader_bytes = 0;
}

/*
 * Whether @sh's names are each 1 to 63 bytes, NUL-terminated, zero after
 * the NUL, and distinct.  Quadratic in at most WEAVE_MAX_SHADER_ENTRIES.
 */
static bool weave_shader_names_ok(const struct weave_shader *sh)
{
	const size_t size = sizeof(sh->entries[0].s);
	u32 i, j;
	size_t len;

	for (i = 0; i < sh->nentries; i++) {
		const char *s = sh->entries[i].s;

		len = strnlen(s, size);
		if (!len || len == size ||
		    memchr_inv(s + len, 0, size - len))
			return false;
		for (j = 0; j < i; j++)
			if (!strcmp(s, sh->entries[j].s))
				return false;
	}
	return true;
}

/* Copy and check the shader @args describes; ERR_PTR on any error. */
static struct weave_shader *
weave_shader_copy(const struct drm_weave_shader_create *args)
{
	u32 n = args->entries.count, done;
	struct weave_shader *sh;
	int ret;

	sh = kzalloc(struct_size(sh, entries, n), GFP_KERNEL_ACCOUNT);
	if (!sh)
		return ERR_PTR(-ENOMEM);
	sh->nentries = n;
	sh->code_size = args->code_size;
	ret = weave_uarray_read(sh->entries, sizeof(sh->entries[0]),
				sizeof(sh->entries[0]), &args->entries, 0, n,
				NULL, &done);
	if (ret)
		goto err;
	ret = -EINVAL;
	if (!weave_shader_names_ok(sh))
		goto err;
	ret = -ENOMEM;
	sh->code = kvmalloc(args->code_size, GFP_KERNEL_ACCOUNT);
	if (!sh->code)
		goto err;
	ret = -EFAULT;
	if (copy_from_user(sh->code, u64_to_user_ptr(args->code),
			   args->code_size))
		goto err;
	ret = weave_core_spirv_check(sh->code, args->code_size / 4,
				     sh->entries, n);
	if (ret)
		goto err;
	return sh;
err:
	weave_shader_free(sh);
	return ERR_PTR(ret);
}

/* Whether one more shader of @size bytes keeps @c within its bounds. */
static bool weave_shader_fits(const struct weave_client *c, u32 size)
{
	return c->nshaders < WEAVE_MAX_CLIENT_SHADERS &&
	       c->shader_bytes + size <= WEAVE_MAX_CLIENT_SHADER_BYTES;
}

/* Give @sh to @c under a handle; 0 or a negative errno. */
static int weave_shader_add(struct weave_client *c, struct weave_shader *sh,
			    u32 *handle)
{
	int ret;

	if (weave_client_lock(c))
		return -ERESTARTSYS;
	if (!weave_shader_fits(c, sh->code_size)) {
		ret = -EDQUOT;
	} else {
		ret = xa_alloc_cyclic(&c->shaders, handle, sh, xa_limit_32b,
				      &c->next_shader, GFP_KERNEL_ACCOUNT);
		if (ret >= 0) {
			ret = 0;
			c->nshaders++;
			c->shader_bytes += sh->code_size;
		}
	}
	mutex_unlock(&c->lock);
	return ret;
}

/**
 * weave_shader_create_ioctl() - Handle %DRM_IOCTL_WEAVE_SHADER_CREATE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_shader_create.
 * @file: The client's file.
 *
 * Reads and checks the module outside any section of the device, then
 * adds it inside one, under the client's mutex, where the file's bounds
 * are checked.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_shader_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_weave_shader_create *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_shader *sh;
	int idx, ret;

	if (args->flags || args->pad || args->code_size % 4 ||
	    args->code_size < 4 * WEAVE_SPIRV_HEADER_WORDS || args->code % 4 ||
	    !args->entries.count ||
	    args->entries.count > WEAVE_MAX_SHADER_ENTRIES ||
	    !weave_uarray_valid(&args->entries,
				sizeof(struct drm_weave_shader_entry)))
		return -EINVAL;
	if (args->code_size > WEAVE_MAX_SHADER_BYTES)
		return -E2BIG;
	sh = weave_shader_copy(args);
	if (IS_ERR(sh))
		return PTR_ERR(sh);
	if (!drm_dev_enter(drm, &idx)) {
		weave_shader_free(sh);
		return -ENODEV;
	}
	ret = weave_shader_add(c, sh, &args->shader);
	drm_dev_exit(idx);
	if (ret)
		weave_shader_free(sh);
	return ret;
}

/**
 * weave_shader_destroy_ioctl() - Handle %DRM_IOCTL_WEAVE_SHADER_DESTROY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_shader_destroy.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_shader_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_weave_shader_destroy *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_shader *sh;

	if (args->pad)
		return -EINVAL;
	if (weave_client_lock(c))
		return -ERESTARTSYS;
	sh = xa_erase(&c->shaders, args->shader);
	if (sh) {
		c->nshaders--;
		c->shader_bytes -= sh->code_size;
	}
	mutex_unlock(&c->lock);
	weave_shader_free(sh);
	return sh ? 0 : -ENOENT;
}
