// SPDX-License-Identifier: MIT
/*
 * The executor's device: a Vulkan instance and one physical device picked
 * by index or name, its limits, the memory path client buffers take, and
 * the error reporting every other file uses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wvk_private.h"

static _Thread_local char wvk_errbuf[256];

const char *wvk_error(void)
{
	return wvk_errbuf;
}

/* Sets the thread's message, on one line, and returns @err. */
int wvk_fail(int err, const char *fmt, ...)
{
	va_list ap;
	char *c;

	va_start(ap, fmt);
	vsnprintf(wvk_errbuf, sizeof(wvk_errbuf), fmt, ap);
	va_end(ap);
	for (c = wvk_errbuf; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return err;
}

/* A failed Vulkan call as an errno; a lost device stays lost. */
int wvk_vk_err(struct wvk_device *dev, VkResult res, const char *what)
{
	switch (res) {
	case VK_ERROR_OUT_OF_HOST_MEMORY:
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
		return wvk_fail(-ENOMEM, "%s: out of memory (%d)", what, res);
	case VK_ERROR_DEVICE_LOST:
		if (dev)
			dev->lost = true;
		return wvk_fail(-ENODEV, "%s: the device was lost", what);
	case VK_ERROR_INVALID_EXTERNAL_HANDLE:
		return wvk_fail(-EINVAL, "%s: invalid external handle", what);
	default:
		return wvk_fail(-EIO, "%s: VkResult %d", what, res);
	}
}

uint64_t wvk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* LP_NUM_THREADS is read when lavapipe makes its screen: before the instance. */
static void wvk_set_lp_threads(int n)
{
	char val[16];

	if (n == WVK_LP_THREADS_KEEP)
		return;
	if (n == WVK_LP_THREADS_DAEMON) {
		if (getenv("LP_NUM_THREADS"))
			return;
		n = 0;
	}
	snprintf(val, sizeof(val), "%d", n);
	setenv("LP_NUM_THREADS", val, 1);
}

static bool wvk_has_ext(const VkExtensionProperties *exts, uint32_t n,
			const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(exts[i].extensionName, name))
			return true;
	return false;
}

static int wvk_make_instance(struct wvk_device *d)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "weave-engine",
		.pEngineName = "wvk",
		.apiVersion = VK_API_VERSION_1_3,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	uint32_t ver = VK_API_VERSION_1_0;
	VkResult res;

	vkEnumerateInstanceVersion(&ver);
	if (ver < VK_API_VERSION_1_2)
		return wvk_fail(-ENODEV, "the Vulkan loader is older than 1.2");
	if (ver < VK_API_VERSION_1_3)
		app.apiVersion = VK_API_VERSION_1_2;
	res = vkCreateInstance(&ici, NULL, &d->instance);
	if (res == VK_ERROR_INCOMPATIBLE_DRIVER)
		return wvk_fail(-ENODEV, "no Vulkan driver is installed");
	if (res != VK_SUCCESS)
		return wvk_vk_err(NULL, res, "vkCreateInstance");
	return 0;
}

/* The device of @opts: by index, by name, or both; else the first one. */
static int wvk_pick(struct wvk_device *d, const struct wvk_device_opts *opts)
{
	VkPhysicalDevice *phys;
	uint32_t n = 0, i;
	VkResult res;
	int ret = -ENODEV;

	res = vkEnumeratePhysicalDevices(d->instance, &n, NULL);
	if (res != VK_SUCCESS)
		return wvk_vk_err(NULL, res, "vkEnumeratePhysicalDevices");
	if (!n)
		return wvk_fail(-ENODEV, "Vulkan lists no physical device");
	phys = calloc(n, sizeof(*phys));
	if (!phys)
		return wvk_fail(-ENOMEM, "out of memory");
	res = vkEnumeratePhysicalDevices(d->instance, &n, phys);
	if (res != VK_SUCCESS && res != VK_INCOMPLETE) {
		free(phys);
		return wvk_vk_err(NULL, res, "vkEnumeratePhysicalDevices");
	}
	for (i = 0; i < n; i++) {
		VkPhysicalDeviceProperties p;

		if (opts->index >= 0 && (uint32_t)opts->index != i)
			continue;
		vkGetPhysicalDeviceProperties(phys[i], &p);
		if (opts->name && !strstr(p.deviceName, opts->name))
			continue;
		d->phys = phys[i];
		d->info.index = i;
		ret = 0;
		break;
	}
	free(phys);
	if (ret)
		return wvk_fail(ret, "no Vulkan device %s%s%s (index %d, of %u)",
				opts->name ? "named like \"" : "",
				opts->name ? opts->name : "",
				opts->name ? "\"" : "", opts->index, n);
	return 0;
}

/* The limits, extensions and memory path of the picked device. */
static int wvk_describe(struct wvk_device *d, const struct wvk_device_opts *o,
			const char **exts, uint32_t *nexts)
{
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
	};
	VkPhysicalDevicePushDescriptorPropertiesKHR push = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR,
	};
	VkPhysicalDeviceSubgroupProperties sub = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
		.pNext = &push,
	};
	VkPhysicalDeviceDriverProperties drv = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
		.pNext = &sub,
	};
	VkPhysicalDeviceProperties2 p2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &drv,
	};
	struct wvk_device_info *info = &d->info;
	const VkPhysicalDeviceLimits *lim = &p2.properties.limits;
	VkExtensionProperties *ext;
	uint32_t n = 0, i;
	VkResult res;

	res = vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n, NULL);
	if (res != VK_SUCCESS)
		return wvk_vk_err(NULL, res, "vkEnumerateDeviceExtensionProperties");
	ext = calloc(n ? n : 1, sizeof(*ext));
	if (!ext)
		return wvk_fail(-ENOMEM, "out of memory");
	res = vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n, ext);
	if (res != VK_SUCCESS && res != VK_INCOMPLETE) {
		free(ext);
		return wvk_vk_err(NULL, res, "vkEnumerateDeviceExtensionProperties");
	}
	if (!wvk_has_ext(ext, n, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
		free(ext);
		return wvk_fail(-ENODEV, "the device lacks %s",
				VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
	}
	exts[(*nexts)++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
	info->has_host_ptr =
		wvk_has_ext(ext, n, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	info->has_dmabuf =
		wvk_has_ext(ext, n, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME) &&
		wvk_has_ext(ext, n, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
	free(ext);
	if (info->has_host_ptr) {
		exts[(*nexts)++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
		push.pNext = &host;
	}
	if (info->has_dmabuf) {
		exts[(*nexts)++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
		exts[(*nexts)++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	}

	vkGetPhysicalDeviceProperties2(d->phys, &p2);
	if (p2.properties.apiVersion < VK_API_VERSION_1_2)
		return wvk_fail(-ENODEV, "%s supports Vulkan %u.%u, not 1.2",
				p2.properties.deviceName,
				VK_API_VERSION_MAJOR(p2.properties.apiVersion),
				VK_API_VERSION_MINOR(p2.properties.apiVersion));
	snprintf(info->name, sizeof(info->name), "%s", p2.properties.deviceName);
	snprintf(info->driver, sizeof(info->driver), "%.100s %.150s", drv.driverName,
		 drv.driverInfo);
	info->api_version = p2.properties.apiVersion;
	info->driver_version = p2.properties.driverVersion;
	info->vendor_id = p2.properties.vendorID;
	info->device_id = p2.properties.deviceID;
	memcpy(info->cache_uuid, p2.properties.pipelineCacheUUID,
	       sizeof(info->cache_uuid));
	for (i = 0; i < 3; i++) {
		info->max_group_count[i] = lim->maxComputeWorkGroupCount[i];
		info->max_group_size[i] = lim->maxComputeWorkGroupSize[i];
	}
	info->max_group_invocations = lim->maxComputeWorkGroupInvocations;
	info->max_shared_memory = lim->maxComputeSharedMemorySize;
	info->max_push_constants = lim->maxPushConstantsSize;
	info->max_storage_range = lim->maxStorageBufferRange;
	info->max_bound_sets = lim->maxBoundDescriptorSets;
	info->max_push_descriptors = push.maxPushDescriptors;
	info->storage_offset_align = lim->minStorageBufferOffsetAlignment;
	info->host_ptr_align = info->has_host_ptr ?
			       host.minImportedHostPointerAlignment : 0;
	info->push_bytes = lim->maxPushConstantsSize < WVK_PUSH_MAX ?
			   lim->maxPushConstantsSize : WVK_PUSH_MAX;
	info->is_lavapipe = drv.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
	d->subgroup_ops = sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT ?
			  sub.supportedOperations : 0;

	if (o->force_staging)
		info->mem_path = WVK_MEM_STAGING;
	else if (info->has_dmabuf)
		info->mem_path = WVK_MEM_DMABUF;
	else if (info->has_host_ptr)
		info->mem_path = WVK_MEM_HOST_PTR;
	else
		info->mem_path = WVK_MEM_STAGING;
	if (o->force_staging) {
		info->has_host_ptr = false;
		info->has_dmabuf = false;
	}
	return 0;
}

/*
 * The features shaders may use are enabled as the device has them, so that
 * a module the SPIR-V check lets through is valid here; bufferDeviceAddress
 * stays off (a kernel reaches only the buffers it binds), and
 * robustBufferAccess is on where the device has it (an access past a
 * binding stays inside it).
 */
static int wvk_make_device(struct wvk_device *d, const char **exts,
			   uint32_t nexts)
{
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkPhysicalDeviceFeatures2 f2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
		.pNext = &d->features11,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &f2,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = nexts,
		.ppEnabledExtensionNames = exts,
	};
	VkQueueFamilyProperties *fam;
	uint32_t n = 0, i;
	VkResult res;

	d->features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
	d->features11.pNext = &d->features12;
	d->features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	d->features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
	if (d->info.api_version >= VK_API_VERSION_1_3)
		d->features12.pNext = &d->features13;
	vkGetPhysicalDeviceFeatures2(d->phys, &f2);
	if (!d->features12.timelineSemaphore)
		return wvk_fail(-ENODEV, "%s lacks timeline semaphores",
				d->info.name);
	d->features12.bufferDeviceAddress = VK_FALSE;
	d->features12.bufferDeviceAddressCaptureReplay = VK_FALSE;
	d->features12.bufferDeviceAddressMultiDevice = VK_FALSE;
	d->features = f2.features;

	vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, NULL);
	fam = calloc(n ? n : 1, sizeof(*fam));
	if (!fam)
		return wvk_fail(-ENOMEM, "out of memory");
	vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, fam);
	for (i = 0; i < n; i++)
		if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
			break;
	free(fam);
	if (i == n)
		return wvk_fail(-ENODEV, "%s has no compute queue", d->info.name);
	d->queue_family = i;
	qci.queueFamilyIndex = i;

	res = vkCreateDevice(d->phys, &dci, NULL, &d->dev);
	if (res != VK_SUCCESS)
		return wvk_vk_err(NULL, res, "vkCreateDevice");
	vkGetDeviceQueue(d->dev, i, 0, &d->queue);
	vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem);
	d->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)
		vkGetDeviceProcAddr(d->dev, "vkCmdPushDescriptorSetKHR");
	if (d->info.has_host_ptr)
		d->host_ptr_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)
			vkGetDeviceProcAddr(d->dev,
					    "vkGetMemoryHostPointerPropertiesEXT");
	if (d->info.has_dmabuf)
		d->fd_props = (PFN_vkGetMemoryFdPropertiesKHR)
			vkGetDeviceProcAddr(d->dev, "vkGetMemoryFdPropertiesKHR");
	if (!d->push_descriptor_set ||
	    (d->info.has_host_ptr && !d->host_ptr_props) ||
	    (d->info.has_dmabuf && !d->fd_props))
		return wvk_fail(-ENODEV, "%s lacks an extension's entry point",
				d->info.name);
	return 0;
}

/* The command pool and the timeline semaphore jobs share. */
static int wvk_make_sync(struct wvk_device *d)
{
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = d->queue_family,
	};
	VkSemaphoreTypeCreateInfo tci = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkSemaphoreCreateInfo sci = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = &tci,
	};
	VkResult res;

	res = vkCreateCommandPool(d->dev, &pci, NULL, &d->pool);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreateCommandPool");
	res = vkCreateSemaphore(d->dev, &sci, NULL, &d->timeline);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreateSemaphore");
	return 0;
}

/* Frees what wvk_device_create() made, whatever it got to. */
static void wvk_device_release(struct wvk_device *d)
{
	if (d->dev) {
		wvk_pipelines_destroy(d);
		if (d->cache)
			vkDestroyPipelineCache(d->dev, d->cache, NULL);
		if (d->timeline)
			vkDestroySemaphore(d->dev, d->timeline, NULL);
		if (d->pool)
			vkDestroyCommandPool(d->dev, d->pool, NULL);
		vkDestroyDevice(d->dev, NULL);
	}
	if (d->instance)
		vkDestroyInstance(d->instance, NULL);
	free(d->cache_path);
	free(d);
}

int wvk_device_create(const struct wvk_device_opts *opts,
		      struct wvk_device **out)
{
	static const struct wvk_device_opts defaults = {
		.index = -1,
		.lp_num_threads = WVK_LP_THREADS_KEEP,
	};
	const char *exts[4];
	uint32_t nexts = 0;
	struct wvk_device *d;
	int ret;

	if (!opts)
		opts = &defaults;
	wvk_set_lp_threads(opts->lp_num_threads);
	d = calloc(1, sizeof(*d));
	if (!d)
		return wvk_fail(-ENOMEM, "out of memory");
	ret = wvk_make_instance(d);
	if (!ret)
		ret = wvk_pick(d, opts);
	if (!ret)
		ret = wvk_describe(d, opts, exts, &nexts);
	if (!ret)
		ret = wvk_make_device(d, exts, nexts);
	if (!ret)
		ret = wvk_make_sync(d);
	if (!ret)
		ret = wvk_cache_open(d, opts->cache_dir);
	if (ret) {
		wvk_device_release(d);
		return ret;
	}
	*out = d;
	return 0;
}

const struct wvk_device_info *wvk_device_info(const struct wvk_device *dev)
{
	return &dev->info;
}

bool wvk_device_lost(const struct wvk_device *dev)
{
	return dev->lost || dev->abandoned;
}

int wvk_device_destroy(struct wvk_device *dev)
{
	if (!dev)
		return 0;
	if (dev->abandoned)
		return wvk_fail(-EBUSY, "an abandoned device may still be running work");
	if (dev->njobs || dev->nbuffers)
		return wvk_fail(-EBUSY, "%u jobs and %u buffers are alive",
				dev->njobs, dev->nbuffers);
	if (!dev->lost)
		wvk_device_save_cache(dev);
	wvk_device_release(dev);
	return 0;
}

void wvk_device_abandon(struct wvk_device *dev)
{
	dev->abandoned = true;
}
