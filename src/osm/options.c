/*
 * options.c - opensm-plugin.conf, the plugin's own options: the file read
 * and the outcome logged; the parsing is the core's (plugin_conf.h).
 *
 * The file is $IBROUTING_CONF when set, else IBR_PLUGIN_CONF_PATH
 * (SYSCONFDIR/opensm/opensm-plugin.conf, beside OpenSM's opensm.conf).
 *
 * Invariants:
 *   - nothing here can stall or stop OpenSM: the file is opened without
 *     blocking (a FIFO has no writer to wait for) and read only when it is
 *     a regular file of at most IBR_CONF_MAX_BYTES; anything else is an
 *     ERR line and the defaults;
 *   - a bad line is an ERR line naming file:line, the key and the value,
 *     every byte of them printable (ibr_escape()), and the value before
 *     it stays in force;
 *   - the options in force are always those of the file as last read
 *     (the defaults when it could not be read): a re-read starts from the
 *     defaults, and its INFO lines name the file and every option that
 *     changed, "key: old -> new";
 *   - the file is read again only when it changed (device, inode, size,
 *     modification or change time differ), checked when OpenSM starts a
 *     heavy sweep, where it re-reads opensm.conf (SIGHUP forces one), and
 *     before every routing run of ours.
 * Called from OpenSM's state manager thread alone (create(), its events,
 * its routing engines): no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibrouting/escape.h"
#include "plugin.h"

#ifndef IBR_PLUGIN_CONF_PATH
#define IBR_PLUGIN_CONF_PATH "/etc/opensm/opensm-plugin.conf"
#endif

static const char default_path[] = IBR_PLUGIN_CONF_PATH;

/* What identifies one version of the file: a change of any field means
 * an editor (or anyone) changed it. */
static void identify(const struct stat *st, struct ibr_conf_file_id *id)
{
	id->exists = true;
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
	id->ctime = st->st_ctim;
}

static bool same_id(const struct ibr_conf_file_id *a,
		    const struct ibr_conf_file_id *b)
{
	if (a->exists != b->exists)
		return false;
	return !a->exists ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec &&
		a->mtime.tv_nsec == b->mtime.tv_nsec &&
		a->ctime.tv_sec == b->ctime.tv_sec &&
		a->ctime.tv_nsec == b->ctime.tv_nsec);
}

/* The file's bytes (NUL-terminated, *len of them), or NULL: it does not
 * exist at the default path (*quiet) or cannot be read (an ERR line). */
static char *read_file(struct ibr_plugin_options *o, osm_log_t *log,
		       size_t *len, bool *quiet)
{
	const char *name = o->path_text;
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	int fd;

	*quiet = false;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(o->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (o->path == default_path && errno == ENOENT) {
			*quiet = true;
			return NULL;
		}
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: %s; using "
			"defaults\n", name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: %s; using "
			"defaults\n", name, strerror(errno));
		goto fail;
	}
	identify(&st, &o->id);
	if (S_ISDIR(st.st_mode)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB30: %s is a directory, not an "
			"options file; using defaults\n", name);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB30: %s is not a regular file "
			"(a device, FIFO or socket); using defaults\n", name);
		goto fail;
	}
	if (st.st_size > IBR_CONF_MAX_BYTES)
		goto too_big;
	text = malloc(IBR_CONF_MAX_BYTES + 2);
	if (!text) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: out of "
			"memory; using defaults\n", name);
		goto fail;
	}
	/* one byte more than the limit: a file grown since fstat is seen */
	while (got <= IBR_CONF_MAX_BYTES) {
		ssize_t n = read(fd, text + got, IBR_CONF_MAX_BYTES + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: %s; "
				"using defaults\n", name, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > IBR_CONF_MAX_BYTES)
		goto too_big;
	close(fd);
	text[got] = '\0';
	*len = got;
	return text;
too_big:
	OSM_LOG(log, OSM_LOG_ERROR, "ERR IB30: %s has more than %u bytes, the "
		"limit of an options file; using defaults\n", name,
		(unsigned)IBR_CONF_MAX_BYTES);
fail:
	free(text);
	close(fd);
	return NULL;
}

/* Reads the file into o->conf (from the defaults) and logs the problems;
 * false when it could not be read (the defaults are in force). */
static bool read_options(struct ibr_plugin_options *o, osm_log_t *log)
{
	struct ibr_conf_messages *msgs = malloc(sizeof(*msgs));
	size_t len = 0;
	bool quiet;
	char *text;

	o->id.exists = false;
	ibr_plugin_conf_free(&o->conf);
	ibr_plugin_conf_defaults(&o->conf, ibr_engines);
	text = read_file(o, log, &len, &quiet);
	o->reads++;
	if (!text) {
		if (quiet)
			OSM_LOG(log, OSM_LOG_INFO, "ibrouting: no options file "
				"%s, using defaults\n", o->path_text);
		free(msgs);
		return false;
	}
	if (!msgs || ibr_plugin_conf_parse(text, len, &o->conf, msgs)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: out of "
			"memory; using defaults\n", o->path_text);
		ibr_plugin_conf_free(&o->conf);
		ibr_plugin_conf_defaults(&o->conf, ibr_engines);
	} else {
		for (unsigned i = 0; i < msgs->count; i++)
			OSM_LOG(log, OSM_LOG_ERROR, "ERR %s: %s:%u: %s\n",
				msgs->item[i].code, o->path_text,
				msgs->item[i].line, msgs->item[i].text);
		if (msgs->dropped)
			OSM_LOG(log, OSM_LOG_ERROR, "ERR IB03: %s: %u more bad "
				"lines not listed\n", o->path_text, msgs->dropped);
	}
	free(msgs);
	free(text);
	return true;
}

static void log_options(const struct ibr_plugin_options *o, osm_log_t *log,
			const char *how)
{
	char all[1024];

	OSM_LOG(log, OSM_LOG_INFO, "ibrouting: read options file %s%s: %s\n",
		o->path_text, how, ibr_plugin_conf_describe(&o->conf, all,
							sizeof(all)));
}

void ibr_plugin_options_load(struct ibr_plugin_options *o, osm_log_t *log)
{
	const char *env = getenv("IBROUTING_CONF");

	memset(o, 0, sizeof(*o));
	ibr_plugin_conf_defaults(&o->conf, ibr_engines);
	o->path = env && *env ? env : default_path;
	ibr_escape_str(o->path, o->path_text, sizeof(o->path_text));
	if (read_options(o, log))
		log_options(o, log, "");
}

static void log_change(void *cxt, const char *key, const char *old_value,
		       const char *new_value)
{
	OSM_LOG((osm_log_t *)cxt, OSM_LOG_INFO, "ibrouting: option %s: %s -> "
		"%s\n", key, old_value, new_value);
}

bool ibr_plugin_options_refresh(struct ibr_plugin_options *o, osm_log_t *log)
{
	struct ibr_conf_file_id now = { 0 };
	struct ibr_plugin_conf old;
	struct stat st;
	unsigned changed;
	bool read;

	if (stat(o->path, &st) == 0)
		identify(&st, &now);
	if (same_id(&now, &o->id))
		return false;
	/* old takes over the dump_dir string, for the comparison */
	old = o->conf;
	o->conf.dump_dir = NULL;
	read = read_options(o, log);
	/* the SA's wrapper is installed (or not) when OpenSM starts only:
	 * answering threads run it, it cannot come or go under them */
	if (o->conf.sa_designated_dlids != old.sa_designated_dlids) {
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB34: %s: sa_designated_dlids "
			"%s takes effect when OpenSM restarts; %s until then\n",
			o->path_text, o->conf.sa_designated_dlids ? "yes" : "no",
			old.sa_designated_dlids ? "yes" : "no");
		o->conf.sa_designated_dlids = old.sa_designated_dlids;
	}
	/* the Double Scheme's SL-to-VL and SL callbacks are given to OpenSM
	 * when it starts only (plugin.c): a transition begun without them
	 * would wait for SL-to-VL tables nobody restricts */
	if (o->conf.transition_double_scheme != old.transition_double_scheme) {
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB34: %s: transition %s takes "
			"effect when OpenSM restarts; %s until then\n",
			o->path_text, o->conf.transition_double_scheme ?
			"double_scheme" : "safe_steps",
			old.transition_double_scheme ? "double_scheme" :
			"safe_steps");
		o->conf.transition_double_scheme = old.transition_double_scheme;
	}
	if (read)
		log_options(o, log, " again (it changed)");
	changed = ibr_plugin_conf_diff(&old, &o->conf, log_change, log);
	if (changed == 0)
		OSM_LOG(log, OSM_LOG_INFO, "ibrouting: no option changed\n");
	ibr_plugin_conf_free(&old);
	return changed > 0;
}

void ibr_plugin_options_free(struct ibr_plugin_options *o)
{
	ibr_plugin_conf_free(&o->conf);
}
