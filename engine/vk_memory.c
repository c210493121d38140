// SPDX-License-Identifier: MIT
/*
 * Client buffers: host regions imported by pointer, dma-bufs imported by
 * file descriptor, or, where the device imports neither, device memory of
 * the buffer's own that jobs copy through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wvk_private.h"

#define WVK_BUFFER_USAGE	(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | \
				 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | \
				 VK_BUFFER_USAGE_TRANSFER_DST_BIT)

/* The first memory type of @bits with all of @want, or -1. */
static int wvk_mem_type(const struct wvk_device *d, uint32_t bits,
			VkMemoryPropertyFlags want)
{
	uint32_t i;

	for (i = 0; i < d->mem.memoryTypeCount; i++)
		if ((bits & (1u << i)) &&
		    (d->mem.memoryTypes[i].propertyFlags & want) == want)
			return (int)i;
	return -1;
}

static int wvk_make_buffer(struct wvk_buffer *b,
			   VkExternalMemoryHandleTypeFlagBits handle)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = handle,
	};
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = handle ? &ext : NULL,
		.size = b->size,
		.usage = WVK_BUFFER_USAGE,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult res;

	res = vkCreateBuffer(b->dev->dev, &bci, NULL, &b->buf);
	if (res != VK_SUCCESS)
		return wvk_vk_err(b->dev, res, "vkCreateBuffer");
	return 0;
}

/* Allocates @size bytes of type @type, importing what @import chains. */
static int wvk_alloc_bind(struct wvk_buffer *b, const void *import,
			  uint64_t size, int type)
{
	VkMemoryDedicatedAllocateInfo ded = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.pNext = import,
		.buffer = b->buf,
	};
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &ded,
		.allocationSize = size,
		.memoryTypeIndex = (uint32_t)type,
	};
	VkResult res;

	if (type < 0)
		return wvk_fail(-EIO, "no memory type fits the buffer");
	res = vkAllocateMemory(b->dev->dev, &mai, NULL, &b->mem);
	if (res != VK_SUCCESS)
		return wvk_vk_err(b->dev, res, "vkAllocateMemory");
	res = vkBindBufferMemory(b->dev->dev, b->buf, b->mem, 0);
	if (res != VK_SUCCESS)
		return wvk_vk_err(b->dev, res, "vkBindBufferMemory");
	return 0;
}

static int wvk_import_host(struct wvk_buffer *b)
{
	const VkExternalMemoryHandleTypeFlagBits h =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	VkMemoryHostPointerPropertiesEXT props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
	};
	VkImportMemoryHostPointerInfoEXT imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = h,
		.pHostPointer = b->host,
	};
	struct wvk_device *d = b->dev;
	VkMemoryRequirements req;
	VkResult res;
	int ret, type;

	ret = wvk_make_buffer(b, h);
	if (ret)
		return ret;
	res = d->host_ptr_props(d->dev, h, b->host, &props);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkGetMemoryHostPointerPropertiesEXT");
	vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
	if (req.size > b->size)
		return wvk_fail(-EINVAL, "the device needs %llu bytes for a buffer of %llu",
				(unsigned long long)req.size,
				(unsigned long long)b->size);
	type = wvk_mem_type(d, props.memoryTypeBits & req.memoryTypeBits,
			    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	return wvk_alloc_bind(b, &imp, b->size, type);
}

static int wvk_make_staging(struct wvk_buffer *b)
{
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
					   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	struct wvk_device *d = b->dev;
	VkMemoryRequirements req;
	VkResult res;
	int ret, type;

	ret = wvk_make_buffer(b, 0);
	if (ret)
		return ret;
	vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
	type = wvk_mem_type(d, req.memoryTypeBits,
			    host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	if (type < 0)
		type = wvk_mem_type(d, req.memoryTypeBits, host);
	ret = wvk_alloc_bind(b, NULL, req.size, type);
	if (ret)
		return ret;
	res = vkMapMemory(d->dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->staging);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkMapMemory");
	return 0;
}

static void wvk_buffer_release(struct wvk_buffer *b)
{
	VkDevice dev = b->dev->dev;

	if (b->buf)
		vkDestroyBuffer(dev, b->buf, NULL);
	if (b->mem)
		vkFreeMemory(dev, b->mem, NULL);
	free(b);
}

static struct wvk_buffer *wvk_buffer_new(struct wvk_device *d, void *host,
					 uint64_t size)
{
	struct wvk_buffer *b = calloc(1, sizeof(*b));

	if (!b) {
		wvk_fail(-ENOMEM, "out of memory");
		return NULL;
	}
	b->dev = d;
	b->host = host;
	b->size = size;
	return b;
}

int wvk_buffer_register(struct wvk_device *dev, void *ptr, uint64_t size,
			struct wvk_buffer **out)
{
	bool import = dev->info.has_host_ptr;
	uint64_t align = import ? dev->info.host_ptr_align :
			 (uint64_t)sysconf(_SC_PAGESIZE);
	struct wvk_buffer *b;
	int ret;

	if (wvk_device_lost(dev))
		return wvk_fail(-ENODEV, "the device was lost");
	if (!ptr || !size)
		return wvk_fail(-EINVAL, "an empty region");
	if ((uintptr_t)ptr % align || size % align)
		return wvk_fail(-EINVAL, "region %p + %llu is not aligned to %llu bytes",
				ptr, (unsigned long long)size,
				(unsigned long long)align);
	b = wvk_buffer_new(dev, ptr, size);
	if (!b)
		return -ENOMEM;
	ret = import ? wvk_import_host(b) : wvk_make_staging(b);
	if (ret) {
		wvk_buffer_release(b);
		return ret;
	}
	dev->nbuffers++;
	*out = b;
	return 0;
}

int wvk_buffer_import_dmabuf(struct wvk_device *dev, int fd, uint64_t size,
			     struct wvk_buffer **out)
{
	const VkExternalMemoryHandleTypeFlagBits h =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	VkMemoryFdPropertiesKHR props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
	};
	VkImportMemoryFdInfoKHR imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.handleType = h,
		.fd = fd,
	};
	VkMemoryRequirements req;
	struct wvk_buffer *b;
	off_t end;
	VkResult res;
	int ret;

	if (wvk_device_lost(dev))
		return wvk_fail(-ENODEV, "the device was lost");
	if (!dev->info.has_dmabuf)
		return wvk_fail(-EOPNOTSUPP, "%s cannot import dma-bufs",
				dev->info.name);
	/* A dma-buf's size is where it ends. */
	end = lseek(fd, 0, SEEK_END);
	if (end < 0 || !size || size > (uint64_t)end)
		return wvk_fail(-EINVAL, "fd %d is no dma-buf of %llu bytes",
				fd, (unsigned long long)size);
	b = wvk_buffer_new(dev, NULL, size);
	if (!b)
		return -ENOMEM;
	ret = wvk_make_buffer(b, h);
	if (!ret) {
		res = dev->fd_props(dev->dev, h, fd, &props);
		if (res != VK_SUCCESS)
			ret = wvk_vk_err(dev, res, "vkGetMemoryFdPropertiesKHR");
	}
	if (!ret) {
		vkGetBufferMemoryRequirements(dev->dev, b->buf, &req);
		if (req.size > (uint64_t)end)
			ret = wvk_fail(-EINVAL, "the device needs %llu bytes, the dma-buf has %lld",
				       (unsigned long long)req.size,
				       (long long)end);
	}
	if (!ret)
		ret = wvk_alloc_bind(b, &imp, req.size,
				     wvk_mem_type(dev, props.memoryTypeBits &
						  req.memoryTypeBits, 0));
	if (ret) {
		/* Vulkan took the fd only if the memory was allocated. */
		if (b->mem) {
			char why[200];

			snprintf(why, sizeof(why), "%s", wvk_error());
			ret = wvk_fail(ret, "%s (the fd was consumed)", why);
		}
		wvk_buffer_release(b);
		return ret;
	}
	dev->nbuffers++;
	*out = b;
	return 0;
}

int wvk_buffer_free(struct wvk_buffer *buf)
{
	if (!buf)
		return 0;
	if (buf->busy)
		return wvk_fail(-EBUSY, "%u jobs still bind the buffer",
				buf->busy);
	buf->dev->nbuffers--;
	wvk_buffer_release(buf);
	return 0;
}

void wvk_buffer_copy_in(struct wvk_buffer *buf, uint64_t offset,
			uint64_t size)
{
	if (buf->staging && buf->host)
		memcpy((char *)buf->staging + offset,
		       (const char *)buf->host + offset, size);
}

void wvk_buffer_copy_out(struct wvk_buffer *buf, uint64_t offset,
			 uint64_t size)
{
	if (buf->staging && buf->host)
		memcpy((char *)buf->host + offset,
		       (const char *)buf->staging + offset, size);
}
