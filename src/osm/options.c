/*
 * options.c - opensm-plugin.conf, the plugin's own options.
 *
 * Format as opensm.conf: one `key value` per line, `#` comments, blank
 * lines.  The file is $IBROUTING_CONF when set, else
 * SYSCONFDIR/opensm-plugin.conf.  A bad line never stops OpenSM: it is
 * logged as an ERR line naming file:line, the key and the value, and the
 * default stays in force.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

static const char default_path[] = SYSCONFDIR "/opensm-plugin.conf";

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

static int parse_root(const char *v, struct ibr_root_choice *root)
{
	char *end;
	uint64_t guid;

	if (ibr_root_strategy_parse(v, &root->strategy) == 0) {
		root->guid = 0;
		return 0;
	}
	errno = 0;
	guid = strtoull(v, &end, 0);
	if (errno || *v == '\0' || *end != '\0' || guid == 0)
		return -1;
	root->guid = guid;
	return 0;
}

/* `ENGINE_KEY VALUE`: option KEY of a registered engine.  Returns -1
 * when the key names no engine (an unknown key); a value the engine
 * refuses is logged here, and its default stays. */
static int apply_engine_option(struct ibr_plugin_options *o, osm_log_t *log,
			       unsigned line, const char *key, const char *value)
{
	for (unsigned i = 0; ibr_engines[i] && i < IBR_PLUGIN_MAX_ENGINES; i++) {
		const struct ibr_engine *e = ibr_engines[i];
		size_t n = strlen(e->name);
		struct ibr_options one = { 0 };
		struct ibr_error err = { "" };
		if (strncmp(key, e->name, n) != 0 || key[n] != '_')
			continue;
		if (ibr_options_add(&one, key + n + 1, value, &err) ||
		    ibr_options_check(&one, e, &err) ||
		    ibr_options_add(&o->engine[i], key + n + 1, value, &err))
			OSM_LOG(log, OSM_LOG_ERROR, "ERR IB06: %s:%u: %s \"%s\": "
				"%s; using the default\n", o->path, line, key,
				value, err.msg);
		return 0;
	}
	return -1;
}

static void apply(struct ibr_plugin_options *o, osm_log_t *log,
		  unsigned line, const char *key, const char *value)
{
	if (strcmp(key, "root") == 0) {
		if (parse_root(value, &o->root) == 0)
			return;
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB01: %s:%u: root \"%s\": expected "
			"a switch GUID or sm, lowest-lid, center; using sm\n",
			o->path, line, value);
	} else if (strcmp(key, "root_fallback") == 0) {
		if (ibr_root_fallback_parse(value, &o->root_fallback) == 0)
			return;
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB29: %s:%u: root_fallback "
			"\"%s\": expected next or refuse; using next\n",
			o->path, line, value);
	} else if (strcmp(key, "verify_before_push") == 0) {
		if (parse_bool(value, &o->verify_before_push) == 0)
			return;
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB02: %s:%u: verify_before_push "
			"\"%s\": expected yes or no; using yes\n", o->path, line,
			value);
	} else if (strcmp(key, "verify_method") == 0) {
		if (strcmp(value, "certificate") == 0) {
			o->verify_method = IBR_VERIFY_CERTIFICATE;
			return;
		}
		if (strcmp(value, "full") == 0) {
			o->verify_method = IBR_VERIFY_FULL;
			return;
		}
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB07: %s:%u: verify_method "
			"\"%s\": expected certificate or full; using "
			"certificate\n", o->path, line, value);
	} else if (strcmp(key, "sa_designated_dlids") == 0) {
		if (parse_bool(value, &o->sa_designated_dlids) == 0)
			return;
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB05: %s:%u: sa_designated_dlids "
			"\"%s\": expected yes or no; using yes\n", o->path, line,
			value);
	} else if (strcmp(key, "hybrid_final_delay") == 0) {
		char *end;
		unsigned long ms;
		errno = 0;
		ms = strtoul(value, &end, 10);
		if (*value && isdigit((unsigned char)*value) && *end == '\0' &&
		    errno == 0 && ms <= 600000) {
			o->hybrid_final_delay_ms = (unsigned)ms;
			return;
		}
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB08: %s:%u: hybrid_final_delay "
			"\"%s\": expected milliseconds, 0 to 600000; using 0\n",
			o->path, line, value);
	} else if (strcmp(key, "dump_dir") == 0) {
		free(o->dump_dir);
		o->dump_dir = *value ? strdup(value) : NULL;
		return;
	} else if (apply_engine_option(o, log, line, key, value) == 0) {
		return;
	} else {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB03: %s:%u: unknown key \"%s\" "
			"(value \"%s\") ignored; known keys: root, "
			"root_fallback, verify_before_push, verify_method, "
			"dump_dir, sa_designated_dlids, hybrid_final_delay, and "
			"ENGINE_OPTION for the options `ibrouting engines` "
			"lists\n", o->path, line, key, value);
	}
}

void ibr_plugin_options_load(struct ibr_plugin_options *o, osm_log_t *log)
{
	const char *env = getenv("IBROUTING_CONF");
	char buf[1024];
	unsigned line = 0;
	FILE *in;

	memset(o, 0, sizeof(*o));
	o->root.strategy = IBR_ROOT_SM;
	o->root_fallback = IBR_ROOT_FALLBACK_NEXT;
	o->verify_before_push = true;
	o->verify_method = IBR_VERIFY_CERTIFICATE;
	o->sa_designated_dlids = true;
	o->path = env && *env ? env : default_path;
	in = fopen(o->path, "r");
	if (!in) {
		if (o->path == default_path && errno == ENOENT) {
			OSM_LOG(log, OSM_LOG_VERBOSE, "no %s, using defaults\n",
				o->path);
			return;
		}
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB04: cannot read %s: %s; using "
			"defaults\n", o->path, strerror(errno));
		return;
	}
	while (fgets(buf, sizeof(buf), in)) {
		char *s = trim(buf), *key, *value;
		line++;
		if (*s == '\0' || *s == '#')
			continue;
		key = s;
		value = s;
		while (*value && !isspace((unsigned char)*value))
			value++;
		if (*value)
			*value++ = '\0';
		apply(o, log, line, key, trim(value));
	}
	fclose(in);
	OSM_LOG(log, OSM_LOG_VERBOSE, "read %s: root %s, root_fallback %s, "
		"verify_before_push %s, "
		"verify_method %s, dump_dir %s, sa_designated_dlids %s, "
		"hybrid_final_delay %u ms\n",
		o->path, o->root.guid ? "by GUID" :
		ibr_root_strategy_name(o->root.strategy),
		ibr_root_fallback_name(o->root_fallback),
		o->verify_before_push ? "yes" : "no",
		o->verify_method == IBR_VERIFY_FULL ? "full" : "certificate",
		o->dump_dir ? o->dump_dir : "(none)",
		o->sa_designated_dlids ? "yes" : "no", o->hybrid_final_delay_ms);
}

void ibr_plugin_options_free(struct ibr_plugin_options *o)
{
	free(o->dump_dir);
	o->dump_dir = NULL;
}
