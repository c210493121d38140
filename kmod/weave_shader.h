/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: shaders, the SPIR-V modules of a client's own kernels, and their
 * ioctls.
 */
#ifndef _WEAVE_SHADER_H_
#define _WEAVE_SHADER_H_

#include <linux/types.h>

#include "weave_spirv.h"

struct drm_device;
struct drm_file;
struct weave_client;

/** WEAVE_MAX_SHADER_BYTES - max_shader_bytes: the largest module. */
#define WEAVE_MAX_SHADER_BYTES		(4u << 20)
/** WEAVE_MAX_SHADER_ENTRIES - max_shader_entries: names of a shader. */
#define WEAVE_MAX_SHADER_ENTRIES	16u
/** WEAVE_MAX_CLIENT_SHADERS - max_client_shaders: shaders of a file. */
#define WEAVE_MAX_CLIENT_SHADERS	256u
/** WEAVE_MAX_CLIENT_SHADER_BYTES - max_client_shader_bytes of a file. */
#define WEAVE_MAX_CLIENT_SHADER_BYTES	(64ull << 20)

/**
 * struct weave_shader - A client's shader: its module and entry points.
 *
 * Immutable once made; &weave_client.shaders owns it.
 */
struct weave_shader {
	/** @code: The SPIR-V module, charged to its maker's memory cgroup. */
	u32 *code;
	/** @code_size: Its size in bytes. */
	u32 code_size;
	/** @nentries: Entries of @entries. */
	u32 nentries;
	/** @entries: The entry points' names, in the order given. */
	struct weave_spirv_name entries[] __counted_by(nentries);
};

void weave_shaders_init(struct weave_client *c);
void weave_shaders_fini(struct weave_client *c);
int weave_shader_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int weave_shader_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);

#endif /* _WEAVE_SHADER_H_ */
