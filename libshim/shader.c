// SPDX-License-Identifier: MIT
/*
 * libweave: shaders: DRM_IOCTL_WEAVE_SHADER_CREATE and
 * DRM_IOCTL_WEAVE_SHADER_DESTROY.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_shader_create(int fd, const void *code, size_t size,
				     const char *const *entries,
				     uint32_t nentries, uint32_t *shader)
{
	struct drm_weave_shader_create args = { 0 };
	struct drm_weave_shader_entry *e;
	uint32_t i;
	int ret;

	if (size > UINT32_MAX || (nentries && !entries))
		return -EINVAL;
	e = calloc(nentries ? nentries : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < nentries; i++) {
		if (!entries[i] || strlen(entries[i]) >= sizeof(e[i].name)) {
			free(e);
			return -EINVAL;
		}
		strcpy(e[i].name, entries[i]);
	}
	args.code = (uintptr_t)code;
	args.code_size = (uint32_t)size;
	args.entries.ptr = (uintptr_t)e;
	args.entries.stride = sizeof(*e);
	args.entries.count = nentries;
	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_SHADER_CREATE, &args);
	free(e);
	if (!ret && shader)
		*shader = args.shader;
	return ret;
}

WEAVE_PUBLIC int weave_shader_destroy(int fd, uint32_t shader)
{
	struct drm_weave_shader_destroy args = { .shader = shader };

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_SHADER_DESTROY, &args);
}
