/*
 * options.c - engine options: key=value pairs checked against what the
 * engine declares (see engine.h).
 *
 * Invariant: after ibr_options_check() every key names an option of the
 * engine and every numeric value parses and lies in its range, so an
 * engine reading its options in the middle of a run never meets bad input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/engine.h"

int ibr_options_add(struct ibr_options *o, const char *key,
		    const char *value, struct ibr_error *err)
{
	const char *eq = value ? NULL : strchr(key, '=');
	size_t key_len = eq ? (size_t)(eq - key) : strlen(key);

	if (eq)
		value = eq + 1;
	if (!value)
		return ibr_error_set(err, "option \"%s\": expected key=value", key);
	if (key_len == 0 || key_len >= IBR_OPTION_KEY_LEN)
		return ibr_error_set(err, "option \"%.*s\": a key of 1..%d "
				     "characters expected", (int)key_len, key,
				     IBR_OPTION_KEY_LEN - 1);
	if (strlen(value) >= IBR_OPTION_VALUE_LEN)
		return ibr_error_set(err, "option %.*s: value longer than %d "
				     "characters", (int)key_len, key,
				     IBR_OPTION_VALUE_LEN - 1);
	for (unsigned i = 0; i < o->count; i++)
		if (strlen(o->item[i].key) == key_len &&
		    strncmp(o->item[i].key, key, key_len) == 0) {
			strcpy(o->item[i].value, value);
			return 0;
		}
	if (o->count == IBR_MAX_OPTIONS)
		return ibr_error_set(err, "option %.*s: more than %d options",
				     (int)key_len, key, IBR_MAX_OPTIONS);
	memcpy(o->item[o->count].key, key, key_len);
	o->item[o->count].key[key_len] = '\0';
	strcpy(o->item[o->count].value, value);
	o->count++;
	return 0;
}

static const struct ibr_option_spec *find_spec(const struct ibr_engine *e,
					       const char *key)
{
	for (const struct ibr_option_spec *s = e->options; s && s->key; s++)
		if (strcmp(s->key, key) == 0)
			return s;
	return NULL;
}

static int parse_uint(const struct ibr_option_spec *spec, const char *value,
		      unsigned *out, struct ibr_error *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno || *value == '\0' || *value == '-' || *end != '\0' ||
	    v < spec->min || v > spec->max)
		return ibr_error_set(err, "option %s=%s: expected a number "
				     "%u..%u", spec->key, value, spec->min,
				     spec->max);
	*out = (unsigned)v;
	return 0;
}

static int check_choice(const struct ibr_option_spec *spec, const char *value,
			struct ibr_error *err)
{
	char known[256] = "";

	for (const char *const *c = spec->choices; *c; c++) {
		if (strcmp(*c, value) == 0)
			return 0;
		strncat(known, c == spec->choices ? "" : ", ",
			sizeof(known) - strlen(known) - 1);
		strncat(known, *c, sizeof(known) - strlen(known) - 1);
	}
	return ibr_error_set(err, "option %s=%s: expected one of %s", spec->key,
			     value, known);
}

int ibr_options_check(const struct ibr_options *o, const struct ibr_engine *e,
		      struct ibr_error *err)
{
	for (unsigned i = 0; o && i < o->count; i++) {
		const struct ibr_option_spec *spec = find_spec(e, o->item[i].key);
		unsigned v;
		if (!spec) {
			char known[256] = "";
			for (const struct ibr_option_spec *s = e->options;
			     s && s->key; s++) {
				strncat(known, s == e->options ? "" : ", ",
					sizeof(known) - strlen(known) - 1);
				strncat(known, s->key,
					sizeof(known) - strlen(known) - 1);
			}
			return ibr_error_set(err, "engine %s has no option \"%s\" "
					     "(%s%s)", e->name, o->item[i].key,
					     known[0] ? "known: " : "it takes none",
					     known);
		}
		if (spec->max > spec->min &&
		    parse_uint(spec, o->item[i].value, &v, err))
			return -1;
		if (spec->choices && check_choice(spec, o->item[i].value, err))
			return -1;
	}
	return 0;
}

const char *ibr_option_str(const struct ibr_route_ctx *ctx, const char *key)
{
	const struct ibr_option_spec *spec = find_spec(ctx->engine, key);
	const struct ibr_options *o = ctx->options;

	for (unsigned i = 0; o && i < o->count; i++)
		if (strcmp(o->item[i].key, key) == 0)
			return o->item[i].value;
	return spec ? spec->def : NULL;
}

int ibr_option_uint(const struct ibr_route_ctx *ctx, const char *key,
		    unsigned *out, struct ibr_error *err)
{
	const struct ibr_option_spec *spec = find_spec(ctx->engine, key);
	const char *value = ibr_option_str(ctx, key);

	if (!spec || !value || spec->max <= spec->min)
		return ibr_error_set(err, "engine %s: no numeric option %s",
				     ctx->engine->name, key);
	return parse_uint(spec, value, out, err);
}
