// SPDX-License-Identifier: MIT
/*
 * The pipeline cache on disk: one file per device UUID and driver version
 * in the cache directory, read only when it is the daemon's own, whole and
 * of this device, and written under a temporary name then renamed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wvk_private.h"

#define WVK_CACHE_MAGIC		"WVKCACHE"
#define WVK_CACHE_VERSION	1u
#define WVK_CACHE_MAX		(64u << 20)

/* What the engine writes before the driver's VkPipelineCache data. */
struct wvk_cache_header {
	char magic[8];
	uint32_t version;
	uint32_t vendor_id;
	uint32_t device_id;
	uint32_t driver_version;
	uint8_t uuid[16];
	uint64_t size;		/* of the driver's data */
	uint64_t hash;		/* wvk_hash() of it */
};

static void wvk_cache_header_fill(const struct wvk_device *d,
				  struct wvk_cache_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, WVK_CACHE_MAGIC, sizeof(h->magic));
	h->version = WVK_CACHE_VERSION;
	h->vendor_id = d->info.vendor_id;
	h->device_id = d->info.device_id;
	h->driver_version = d->info.driver_version;
	memcpy(h->uuid, d->info.cache_uuid, sizeof(h->uuid));
}

/* Whether @data (after our header) is the driver's data for this device. */
static bool wvk_cache_valid(const struct wvk_device *d,
			    const struct wvk_cache_header *h, const void *data)
{
	struct wvk_cache_header want;
	VkPipelineCacheHeaderVersionOne vk;

	wvk_cache_header_fill(d, &want);
	want.size = h->size;
	want.hash = h->hash;
	if (memcmp(h, &want, sizeof(want)) ||
	    wvk_hash(data, h->size, 0) != h->hash)
		return false;
	/* The driver checks its own header too; not all of them do it well. */
	if (h->size < sizeof(vk))
		return false;
	memcpy(&vk, data, sizeof(vk));
	return vk.headerSize >= sizeof(vk) && vk.headerSize <= h->size &&
	       vk.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
	       vk.vendorID == d->info.vendor_id &&
	       vk.deviceID == d->info.device_id &&
	       !memcmp(vk.pipelineCacheUUID, d->info.cache_uuid, VK_UUID_SIZE);
}

/*
 * The cache file's data, or NULL: a file that is not a regular file of
 * ours, not writable by others, of a sane size and valid, is not trusted.
 */
static void *wvk_cache_read(const struct wvk_device *d, const char *path,
			    size_t *size)
{
	struct wvk_cache_header h;
	struct stat st;
	void *data = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size < (off_t)sizeof(h) ||
	    st.st_size > (off_t)(sizeof(h) + WVK_CACHE_MAX))
		goto out;
	if (read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    h.size != (uint64_t)st.st_size - sizeof(h))
		goto out;
	data = malloc(h.size ? h.size : 1);
	if (!data)
		goto out;
	if (read(fd, data, h.size) != (ssize_t)h.size ||
	    !wvk_cache_valid(d, &h, data)) {
		free(data);
		data = NULL;
		goto out;
	}
	*size = h.size;
out:
	close(fd);
	return data;
}

int wvk_cache_open(struct wvk_device *dev, const char *dir)
{
	VkPipelineCacheCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
	};
	const uint8_t *u = dev->info.cache_uuid;
	void *data = NULL;
	size_t size = 0, len;
	VkResult res;
	int i;
	uint32_t k;

	if (dir) {
		len = strlen(dir) + 64;
		dev->cache_path = malloc(len);
		if (!dev->cache_path)
			return wvk_fail(-ENOMEM, "out of memory");
		i = snprintf(dev->cache_path, len, "%s/wvk-", dir);
		for (k = 0; k < VK_UUID_SIZE; k++)
			i += snprintf(dev->cache_path + i, len - i, "%02x", u[k]);
		snprintf(dev->cache_path + i, len - i, "-%08x.cache",
			 dev->info.driver_version);
		data = wvk_cache_read(dev, dev->cache_path, &size);
	}
	ci.initialDataSize = size;
	ci.pInitialData = data;
	dev->info.cache_loaded = !!data;
	res = vkCreatePipelineCache(dev->dev, &ci, NULL, &dev->cache);
	free(data);
	if (res != VK_SUCCESS && dev->info.cache_loaded) {
		/* The driver refused the data: start empty. */
		ci.initialDataSize = 0;
		ci.pInitialData = NULL;
		dev->info.cache_loaded = false;
		res = vkCreatePipelineCache(dev->dev, &ci, NULL, &dev->cache);
	}
	if (res != VK_SUCCESS)
		return wvk_vk_err(dev, res, "vkCreatePipelineCache");
	return 0;
}

static int wvk_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int wvk_device_save_cache(struct wvk_device *dev)
{
	struct wvk_cache_header h;
	size_t size = 0, len;
	char *tmp = NULL;
	void *data = NULL;
	VkResult res;
	int fd, ret;

	if (!dev->cache_path)
		return 0;
	if (wvk_device_lost(dev))
		return wvk_fail(-ENODEV, "the device was lost");
	res = vkGetPipelineCacheData(dev->dev, dev->cache, &size, NULL);
	if (res == VK_SUCCESS) {
		data = malloc(size ? size : 1);
		if (!data)
			return wvk_fail(-ENOMEM, "out of memory");
		res = vkGetPipelineCacheData(dev->dev, dev->cache, &size, data);
	}
	if (res != VK_SUCCESS) {
		free(data);
		return wvk_vk_err(dev, res, "vkGetPipelineCacheData");
	}
	wvk_cache_header_fill(dev, &h);
	h.size = size;
	h.hash = wvk_hash(data, size, 0);
	len = strlen(dev->cache_path) + 32;
	tmp = malloc(len);
	ret = -ENOMEM;
	if (!tmp)
		goto out;
	snprintf(tmp, len, "%s.%d.tmp", dev->cache_path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = wvk_write_all(fd, &h, sizeof(h));
	if (!ret)
		ret = wvk_write_all(fd, data, size);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, dev->cache_path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	free(data);
	if (ret)
		return wvk_fail(ret, "writing the pipeline cache %s failed (%d)",
				dev->cache_path, ret);
	return 0;
}
