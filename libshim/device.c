// SPDX-License-Identifier: MIT
/*
 * libweave: finding, opening and closing weave devices.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "weave.h"
#include "private.h"

#define WEAVE_DRIVER_NAME	"weave"

/*
 * Returns 0 if @fd is a DRM device driven by weave, -ENODEV if it is some
 * other file, -ENOMEM if libdrm ran out of memory finding out.
 */
static int check_driver(int fd)
{
	drmVersionPtr version;
	int ret;

	errno = 0;
	version = drmGetVersion(fd);
	if (!version)
		return errno == ENOMEM ? -ENOMEM : -ENODEV;

	ret = version->name && !strcmp(version->name, WEAVE_DRIVER_NAME) ?
	      0 : -ENODEV;
	drmFreeVersion(version);
	return ret;
}

WEAVE_PUBLIC int weave_device_open_path(const char *path)
{
	int fd, ret;

	fd = shim_errno(open(path, O_RDWR | O_CLOEXEC));
	if (fd < 0)
		return fd;

	ret = check_driver(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static int compare_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

/* Parses "renderD<minor>" with nothing after the number. */
static int parse_render_minor(const char *name, unsigned int *minor)
{
	static const char prefix[] = DRM_RENDER_MINOR_NAME;
	unsigned long value;
	char *end;

	if (strncmp(name, prefix, sizeof(prefix) - 1))
		return -EINVAL;
	name += sizeof(prefix) - 1;
	if (*name < '0' || *name > '9')
		return -EINVAL;

	errno = 0;
	value = strtoul(name, &end, 10);
	if (errno || *end || value > UINT_MAX)
		return -EINVAL;
	*minor = value;
	return 0;
}

/*
 * Lists the render node minors in DRM_DIR_NAME, sorted.  On success returns
 * their number and sets *@minors to an array the caller frees.
 */
static int list_render_minors(unsigned int **minors)
{
	unsigned int *list = NULL, *grown, minor;
	int nr = 0, cap = 0, ret = 0;
	struct dirent *entry;
	DIR *dir;

	dir = opendir(DRM_DIR_NAME);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;

	for (;;) {
		errno = 0;
		entry = readdir(dir);
		if (!entry) {
			ret = -errno;
			break;
		}
		if (parse_render_minor(entry->d_name, &minor))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			list = grown;
		}
		list[nr++] = minor;
	}
	closedir(dir);
	if (ret) {
		free(list);
		return ret;
	}

	qsort(list, nr, sizeof(*list), compare_uint);
	*minors = list;
	return nr;
}

/*
 * Walks the render nodes in minor order, counting weave devices in *@count.
 * Returns an open file descriptor on the one numbered @index; -ENODEV if
 * there are not that many, with *@open_error set to the error of the first
 * node that failed to open (0 if none did); or the error that kept the
 * nodes from being listed.
 */
static int find_device(unsigned int index, unsigned int *count,
		       int *open_error)
{
	char path[sizeof(DRM_DIR_NAME "/" DRM_RENDER_MINOR_NAME) + 10];
	unsigned int *minors = NULL;
	int nr, i, fd;

	*count = 0;
	*open_error = 0;
	nr = list_render_minors(&minors);
	if (nr < 0)
		return nr;

	for (i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s%u",
			 DRM_DIR_NAME, DRM_RENDER_MINOR_NAME, minors[i]);
		fd = weave_device_open_path(path);
		if (fd >= 0) {
			if ((*count)++ == index)
				goto out;
			close(fd);
		} else if (fd != -ENODEV && !*open_error) {
			*open_error = fd;
		}
	}
	fd = -ENODEV;
out:
	free(minors);
	return fd;
}

WEAVE_PUBLIC int weave_device_open(unsigned int index)
{
	unsigned int count;
	int fd, open_error;

	fd = find_device(index, &count, &open_error);
	if (fd == -ENODEV && open_error)
		return open_error;
	return fd;
}

WEAVE_PUBLIC int weave_device_count(void)
{
	unsigned int count;
	int ret, open_error;

	ret = find_device(UINT_MAX, &count, &open_error);
	if (ret >= 0) {
		/* Render minors are far too few for this. */
		close(ret);
		return -EOVERFLOW;
	}
	if (ret != -ENODEV)
		return ret;
	/* Like weave_device_open(0): no device found because of an error. */
	if (!count && open_error)
		return open_error;
	return (int)count;
}

WEAVE_PUBLIC int weave_device_close(int fd)
{
	return shim_errno(close(fd));
}
