/* SPDX-License-Identifier: MIT */
/*
 * The executor's internal state, shared by its files: the device, buffers,
 * pipelines and jobs behind the handles of wvk.h, and the helpers each file
 * offers the others.
 */
#ifndef _WVK_PRIVATE_H_
#define _WVK_PRIVATE_H_

#include <errno.h>
#include <vulkan/vulkan.h>

#include "wvk.h"

#define WVK_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct wvk_device {
	struct wvk_device_info info;
	VkInstance instance;
	VkPhysicalDevice phys;
	VkDevice dev;
	VkQueue queue;
	uint32_t queue_family;
	VkPhysicalDeviceMemoryProperties mem;
	VkPipelineCache cache;
	char *cache_path;	/* NULL: no disk cache */
	VkCommandPool pool;
	VkSemaphore timeline;
	uint64_t timeline_value;	/* the last value a job signals */
	bool lost;		/* Vulkan said so: nothing runs any more */
	bool abandoned;		/* wvk_device_abandon(): work may still run */
	uint32_t nbuffers;	/* alive, counted for wvk_device_destroy() */
	uint32_t njobs;
	struct wvk_pipeline *pipelines;	/* the in-memory cache, a list */
	/* Capabilities the device allows shaders, for the SPIR-V check. */
	VkPhysicalDeviceFeatures features;
	VkPhysicalDeviceVulkan11Features features11;
	VkPhysicalDeviceVulkan12Features features12;
	VkPhysicalDeviceVulkan13Features features13;
	VkSubgroupFeatureFlags subgroup_ops;
	PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
	PFN_vkGetMemoryHostPointerPropertiesEXT host_ptr_props;
	PFN_vkGetMemoryFdPropertiesKHR fd_props;
};

struct wvk_buffer {
	struct wvk_device *dev;
	void *host;		/* the caller's region, NULL for a dma-buf */
	uint64_t size;
	VkBuffer buf;
	VkDeviceMemory mem;
	void *staging;		/* mapped device memory, or NULL: no copies */
	uint32_t busy;		/* jobs that bind it, not yet seen complete */
};

struct wvk_pipeline {
	struct wvk_pipeline *next;
	uint64_t hash;
	void *spirv;		/* a copy, compared on a hash hit */
	size_t size;
	char *entry;
	uint32_t nbindings;
	uint32_t push_used;	/* the push-constant bytes the module reads */
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
};

/* What wvk_spirv_check() learns of a module's entry point. */
struct wvk_spirv_facts {
	uint32_t local_size[3];
	uint32_t push_bytes;	/* end of the push-constant block, or 0 */
};

/* vk_device.c */
#define wvk_printf(f, a)	__attribute__((format(printf, f, a)))
int wvk_fail(int err, const char *fmt, ...) wvk_printf(2, 3);
int wvk_vk_err(struct wvk_device *dev, VkResult res, const char *what);

/* vk_memory.c */
void wvk_buffer_copy_in(struct wvk_buffer *buf, uint64_t offset,
			uint64_t size);
void wvk_buffer_copy_out(struct wvk_buffer *buf, uint64_t offset,
			 uint64_t size);

/* vk_spirv.c */
uint64_t wvk_hash(const void *data, size_t size, uint64_t seed);
int wvk_spirv_check(const struct wvk_device *dev, const uint32_t *words,
		    size_t nwords, const char *entry, uint32_t nbindings,
		    struct wvk_spirv_facts *facts);

/* vk_cache.c */
int wvk_cache_open(struct wvk_device *dev, const char *dir);
void wvk_pipelines_destroy(struct wvk_device *dev);

#endif /* _WVK_PRIVATE_H_ */
