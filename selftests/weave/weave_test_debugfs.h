/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the debugfs suite: finding a device's and a client's debugfs
 * files, reading them, and parsing their two forms (key: value lines, or
 * a header and rows).
 */
#ifndef _WEAVE_TEST_DEBUGFS_H_
#define _WEAVE_TEST_DEBUGFS_H_

#include <dirent.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "weave_test.h"

#define DEBUGFS		"/sys/kernel/debug"
#define DRIVER_DIR	"/sys/bus/platform/drivers/weave"

/* The text of one debugfs file, and the biggest one read. */
#define TEXT_MAX	(64 * 1024)

/* How long the loops of reads last, in ns, and the readers at once. */
#define LOOP_NS		(2 * WEAVE_TEST_SEC)
#define READERS		2

/* weave's files of a device, and of each client. */
static const char *const dev_files[] = {
	"weave_device", "weave_queues", "weave_clients", "weave_resident",
};
static const char *const client_files[] = { "state", "slots", "failures" };

/* The platform device of @fd's node and its debugfs directory. */
struct node {
	char dev[64];
	char dir[128];
};

/* Reads @path whole into @buf (NUL-terminated): its length or -errno. */
static inline ssize_t dbg_read(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf + got, len - 1 - got);
		if (n > 0)
			got += n;
	} while (n > 0 && got < len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[got] = 0;
	return n < 0 ? n : (ssize_t)got;
}

/* The number after "@key: " in @text into @v: 0, or -1 if absent. */
static inline int dbg_kv(const char *text, const char *key, long long *v)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && !strncmp(p + klen, ": ", 2)) {
			*v = strtoll(p + klen + 2, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Splits @line (up to its newline) at spaces into @f; the fields. */
static inline int dbg_fields(const char *line, char f[][32], int max)
{
	int n = 0;

	while (*line && *line != '\n' && n < max) {
		size_t k = strcspn(line, " \n");

		snprintf(f[n++], 32, "%.*s", (int)k, line);
		line += k;
		if (*line == ' ')
			line++;
	}
	return n;
}

/*
 * Of a table (a header line, then rows), the cell of column @col in the
 * row whose first cell is @row, into @out: 0, or -1 if there is none.
 */
static inline int dbg_cell(const char *text, long long row, const char *col,
		    char *out, size_t len)
{
	char head[16][32], f[16][32];
	const char *p = strchr(text, '\n');
	int nh = dbg_fields(text, head, 16), c, n;

	for (c = 0; c < nh && strcmp(head[c], col); c++)
		;
	while (c < nh && p && *++p) {
		n = dbg_fields(p, f, 16);
		if (n == nh && strtoll(f[0], NULL, 10) == row) {
			snprintf(out, len, "%s", f[c]);
			return 0;
		}
		p = strchr(p, '\n');
	}
	return -1;
}

/* A number in a table, -1 if absent. */
static inline long long dbg_num(const char *text, long long row, const char *col)
{
	char cell[32];

	return dbg_cell(text, row, col, cell, sizeof(cell)) ? -1 :
		strtoll(cell, NULL, 10);
}

/*
 * Whether @text is one of the two forms: all lines "key: value", or a
 * header of names and rows of as many fields.
 */
static inline int dbg_well_formed(const char *text)
{
	char f[16][32];
	const char *p = text;
	int cols = -1, kv = !!strstr(text, ": ");

	if (!*text || text[strlen(text) - 1] != '\n')
		return 0;
	for (; *p; p = strchr(p, '\n') + 1) {
		if (kv) {
			size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");

			if (!k || strncmp(p + k, ": ", 2) || p[k + 2] == '\n')
				return 0;
		} else if (cols < 0) {
			cols = dbg_fields(p, f, 16);
		} else if (dbg_fields(p, f, 16) != cols) {
			return 0;
		}
	}
	return 1;
}

/* @fd's platform device and debugfs directory, mounting debugfs first. */
static inline void dbg_node(struct __test_metadata *_metadata, int fd,
		    struct node *nd)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct dirent *e;
	struct stat st;
	ssize_t n;
	DIR *d;
	int card = -1;

	if (access(DEBUGFS "/dri", F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	ASSERT_EQ(0, fstat(fd, &st));
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = 0;
	snprintf(nd->dev, sizeof(nd->dev), "%.60s",
		 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	/* The primary node beside the render node: its debugfs directory. */
	strncat(path, "/drm", sizeof(path) - strlen(path) - 1);
	d = opendir(path);
	ASSERT_NE(NULL, d);
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "card%d", &card) == 1)
			break;
	closedir(d);
	ASSERT_LE(0, card);
	snprintf(nd->dir, sizeof(nd->dir), DEBUGFS "/dri/%d/", card);
	ASSERT_EQ(0, access(nd->dir, F_OK)) {
		TH_LOG("%s: %s (debugfs mounted?)", nd->dir, strerror(errno));
	}
}

/* The drm-client-id of @fd, from its fdinfo. */
static inline long long dbg_client_id(struct __test_metadata *_metadata, int fd)
{
	char path[64], line[64];
	long long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %lld", &id) == 1)
			break;
	fclose(f);
	ASSERT_LT(0, id);
	return id;
}

/* Reads file @name of the device, or of client @id if @id > 0. */
static inline void dbg(struct __test_metadata *_metadata, const struct node *nd,
		long long id, const char *name, char *buf)
{
	char path[PATH_MAX];
	ssize_t n;

	if (id > 0)
		snprintf(path, sizeof(path), "%sweave_client/%lld/%s", nd->dir,
			 id, name);
	else
		snprintf(path, sizeof(path), "%s%s", nd->dir, name);
	n = dbg_read(path, buf, TEXT_MAX);
	ASSERT_LT(0, n) {
		TH_LOG("%s: %s", path, strerror((int)-n));
	}
	ASSERT_TRUE(dbg_well_formed(buf)) {
		TH_LOG("%s is not in either form:\n%s", path, buf);
	}
}

/* A key of client @id's state (or of the device's if @id is 0). */
static inline long long dbg_state(struct __test_metadata *_metadata,
				  const struct node *nd, long long id, const char *key)
{
	static char buf[TEXT_MAX];
	long long v = 0;

	dbg(_metadata, nd, id, id ? "state" : "weave_device", buf);
	EXPECT_EQ(0, dbg_kv(buf, key, &v)) {
		TH_LOG("no %s in:\n%s", key, buf);
	}
	return v;
}

/* A cell of slot @slot of client @id, -1 if the slot has no row. */
static inline long long dbg_slot(struct __test_metadata *_metadata,
				 const struct node *nd, long long id,
				 uint32_t slot, const char *col)
{
	static char buf[TEXT_MAX];

	dbg(_metadata, nd, id, "slots", buf);
	return dbg_num(buf, slot, col);
}

#endif /* _WEAVE_TEST_DEBUGFS_H_ */
