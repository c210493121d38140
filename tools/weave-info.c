// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave-info: lists the weave devices, with their uAPI version, limits and
 * module parameters, and the usage of the processes that have a weave file
 * open, from their fdinfo; for people, or for scripts with --json.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weave.h>

#define PARAMS_DIR	"/sys/module/weave/parameters"

/* The most clients one run reports, and keys per client. */
#define MAX_CLIENTS	4096
#define MAX_KEYS	64

#define INFO(field) \
	{ #field, offsetof(struct drm_weave_device_info, field), \
	  sizeof(((struct drm_weave_device_info *)0)->field) }

/* The device info fields, in the struct's order, padding left out. */
static const struct {
	const char *name;
	size_t offset;
	size_t size;
} info_fields[] = {
	INFO(max_bo_size), INFO(page_size), INFO(num_queues),
	INFO(max_streams), INFO(max_tasks), INFO(max_client_streams),
	INFO(max_tasks_per_enqueue), INFO(max_pending_tasks),
	INFO(max_staged_bytes), INFO(max_bindings), INFO(max_uniform_bytes),
	INFO(max_in_syncs), INFO(job_timeout_ms), INFO(default_strategy),
	INFO(max_slot_gates), INFO(max_delay_us), INFO(max_check_ranges),
	INFO(max_report_failures), INFO(max_live_failures),
	INFO(max_failure_skips), INFO(slot_staging_bytes),
	INFO(max_staging_slice), INFO(max_graphs), INFO(max_graph_tasks),
	INFO(max_client_bos), INFO(max_client_bo_bytes),
	INFO(max_buffer_claims), INFO(max_client_claims),
	INFO(max_client_rings), INFO(max_ring_units),
	INFO(max_user_resident_bytes), INFO(max_resident_bytes),
	INFO(max_shader_bytes), INFO(max_shader_entries),
	INFO(max_client_shaders), INFO(max_client_shader_bytes),
	INFO(num_engine_queues),
};

struct key {
	char name[48];
	char value[48];
};

struct client {
	int pid;
	char comm[32];
	char id[24];
	int nkeys;
	struct key keys[MAX_KEYS];
};

static int json;

/* Copies @src into @dst of @len bytes, cut short if it must be. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* Prints @s as a JSON string. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Prints a value as a JSON number when it is one, else as a string. */
static void json_value(const char *v)
{
	const char *p = v;

	while (isdigit((unsigned char)*p))
		p++;
	if (p != v && !*p)
		fputs(v, stdout);
	else
		json_string(v);
}

static uint64_t info_field(const struct drm_weave_device_info *info,
			   unsigned int i)
{
	const char *p = (const char *)info + info_fields[i].offset;
	uint32_t v32;
	uint64_t v64;

	if (info_fields[i].size == sizeof(v64)) {
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

/* The module parameters, as they are in force. */
static void print_params(void)
{
	struct dirent **names;
	int n, i, first = 1;

	n = scandir(PARAMS_DIR, &names, NULL, alphasort);
	if (n < 0) {
		if (json)
			fputs("{}", stdout);
		return;
	}
	if (json)
		putchar('{');
	else
		printf("  module parameters:\n");
	for (i = 0; i < n; i++) {
		char path[512], value[256] = "";
		FILE *f;

		if (names[i]->d_name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), PARAMS_DIR "/%s",
			 names[i]->d_name);
		f = fopen(path, "r");
		if (!f)
			goto next;
		if (fgets(value, sizeof(value), f))
			value[strcspn(value, "\n")] = 0;
		fclose(f);
		if (json) {
			printf("%s", first ? "" : ", ");
			json_string(names[i]->d_name);
			fputs(": ", stdout);
			json_value(value);
		} else {
			printf("    %-24s %s\n", names[i]->d_name, value);
		}
		first = 0;
next:
		free(names[i]);
	}
	free(names);
	if (json)
		putchar('}');
}

static int print_device(unsigned int index, int first)
{
	struct drm_weave_device_info info;
	unsigned int i;
	int fd, ret;

	fd = weave_device_open(index);
	if (fd < 0) {
		fprintf(stderr, "weave-info: device %u: %s\n", index,
			strerror(-fd));
		return fd;
	}
	memset(&info, 0, sizeof(info));
	ret = weave_query_device_info(fd, &info);
	weave_device_close(fd);
	if (ret) {
		fprintf(stderr, "weave-info: device %u: query: %s\n", index,
			strerror(-ret));
		return ret;
	}
	if (json) {
		printf("%s{\"index\": %u, \"uapi\": \"%u.%u\", \"limits\": {",
		       first ? "" : ", ", index, info.uapi_major,
		       info.uapi_minor);
		for (i = 0; i < sizeof(info_fields) / sizeof(info_fields[0]); i++)
			printf("%s\"%s\": %llu", i ? ", " : "",
			       info_fields[i].name,
			       (unsigned long long)info_field(&info, i));
		printf("}}");
		return 0;
	}
	printf("device %u: weave uAPI %u.%u\n", index, info.uapi_major,
	       info.uapi_minor);
	for (i = 0; i < sizeof(info_fields) / sizeof(info_fields[0]); i++)
		printf("  %-26s %llu\n", info_fields[i].name,
		       (unsigned long long)info_field(&info, i));
	return 0;
}

/* Reads the keys of one fdinfo file; 1 if it is a weave file's. */
static int read_fdinfo(const char *path, struct client *c)
{
	char line[256];
	int weave = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return 0;
	c->nkeys = 0;
	c->id[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;
		struct key *k;

		if (!colon || (strncmp(line, "drm-", 4) &&
			       strncmp(line, "weave-", 6)))
			continue;
		*colon = 0;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		if (!strcmp(line, "drm-driver")) {
			weave = !strcmp(v, "weave");
			continue;
		}
		if (!strcmp(line, "drm-client-id")) {
			copy(c->id, sizeof(c->id), v);
			continue;
		}
		if (c->nkeys == MAX_KEYS)
			continue;
		k = &c->keys[c->nkeys++];
		copy(k->name, sizeof(k->name), line);
		copy(k->value, sizeof(k->value), v);
	}
	fclose(f);
	return weave && c->id[0];
}

static int seen(struct client *clients, int n, const struct client *c)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(clients[i].id, c->id))
			return 1;
	return 0;
}

/* Adds the weave clients of process @pid; returns the new count. */
static int scan_pid(int pid, struct client *clients, int n)
{
	char path[64], comm[32] = "";
	struct dirent *e;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	if (!dir)
		return n;
	while (n < MAX_CLIENTS && (e = readdir(dir))) {
		char file[320];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%d/fdinfo/%s", pid,
			 e->d_name);
		clients[n].pid = pid;
		copy(clients[n].comm, sizeof(clients[n].comm), comm);
		/* A file open on several descriptors is one client. */
		if (read_fdinfo(file, &clients[n]) && !seen(clients, n, &clients[n]))
			n++;
	}
	closedir(dir);
	return n;
}

static void print_clients(const struct client *clients, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		const struct client *c = &clients[i];

		if (json) {
			printf("%s{\"pid\": %d, \"comm\": ", i ? ", " : "",
			       c->pid);
			json_string(c->comm);
			printf(", \"client_id\": %s, \"usage\": {", c->id);
			for (j = 0; j < c->nkeys; j++) {
				printf("%s", j ? ", " : "");
				json_string(c->keys[j].name);
				fputs(": ", stdout);
				json_value(c->keys[j].value);
			}
			printf("}}");
			continue;
		}
		printf("client %s: pid %d (%s)\n", c->id, c->pid, c->comm);
		for (j = 0; j < c->nkeys; j++)
			printf("  %-26s %s\n", c->keys[j].name,
			       c->keys[j].value);
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: weave-info [--json] [--pid PID | --clients]\n"
		"  Lists the weave devices and their limits and module\n"
		"  parameters; with --pid, the usage of that process's weave\n"
		"  files, from fdinfo; with --clients, of every process's.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "clients", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct client clients[MAX_CLIENTS];
	int pid = 0, all = 0, n = 0, count, ret = 0, opt;
	unsigned int i;
	char *end;

	while ((opt = getopt_long(argc, argv, "jp:ch", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0) {
				fprintf(stderr, "weave-info: bad pid '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			all = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (pid && all)) {
		usage(stderr);
		return 2;
	}

	if (pid || all) {
		if (pid) {
			n = scan_pid(pid, clients, 0);
		} else {
			DIR *proc = opendir("/proc");
			struct dirent *e;

			while (proc && (e = readdir(proc)))
				if (isdigit((unsigned char)e->d_name[0]))
					n = scan_pid(atoi(e->d_name), clients,
						     n);
			if (proc)
				closedir(proc);
		}
		if (json)
			putchar('[');
		print_clients(clients, n);
		if (json)
			puts("]");
		return 0;
	}

	count = weave_device_count();
	if (count <= 0) {
		fprintf(stderr, "weave-info: no weave device: %s\n",
			count ? strerror(-count) : "is weave.ko loaded?");
		return 1;
	}
	if (json)
		fputs("{\"devices\": [", stdout);
	for (i = 0; i < (unsigned int)count; i++) {
		if (print_device(i, !n))
			ret = 1;
		else
			n++;
	}
	if (json) {
		fputs("], \"parameters\": ", stdout);
		print_params();
		puts("}");
	} else {
		print_params();
	}
	return ret;
}
