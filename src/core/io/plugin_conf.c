/*
 * plugin_conf.c - the parser of opensm-plugin.conf (see plugin_conf.h).
 *
 * Invariants:
 *   - the text is read as bytes with a length: a NUL byte is a byte of
 *     its line (the line is refused, never cut short), and no line length
 *     limit exists, so every line keeps its own number;
 *   - a key is looked up in keys[], one row per plain key with its parser,
 *     its printer and its ERR code, then as ENGINE_OPTION of an engine
 *     the caller listed (the registry's: no engine is known here); adding
 *     a key is adding a row;
 *   - every key or value put into a message goes through ibr_escape(), so
 *     a message is printable ASCII whatever the file holds;
 *   - a bad value leaves the option as it was, and the message says which
 *     value stays in force (printed by the key's printer).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ibrouting/escape.h"
#include "ibrouting/plugin_conf.h"

/* How much of a key or value a message quotes (bytes of the input). */
#define QUOTE_BYTES 96
#define QUOTE_LEN (4 * QUOTE_BYTES + 4)
#define VALUE_TEXT 128

/* ---- one row per key ------------------------------------------------ */

struct conf_key {
	const char *name;
	const char *code;              /* ERR code of a bad value */
	const char *expected;          /* what a value must be */
	/* 0: set; -1: the value is bad, c unchanged */
	int (*parse)(struct ibr_plugin_conf *c, const char *value);
	void (*print)(const struct ibr_plugin_conf *c, char *buf, size_t len);
};

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

static void print_bool(bool b, char *buf, size_t len)
{
	snprintf(buf, len, "%s", b ? "yes" : "no");
}

static int parse_root(struct ibr_plugin_conf *c, const char *v)
{
	char *end;
	uint64_t guid;

	if (ibr_root_strategy_parse(v, &c->root.strategy) == 0) {
		c->root.guid = 0;
		return 0;
	}
	errno = 0;
	guid = strtoull(v, &end, 0);
	if (errno || *v == '\0' || *v == '-' || *end != '\0' || guid == 0)
		return -1;
	c->root.guid = guid;
	return 0;
}

static void print_root(const struct ibr_plugin_conf *c, char *buf, size_t len)
{
	if (c->root.guid)
		snprintf(buf, len, "0x%016" PRIx64, c->root.guid);
	else
		snprintf(buf, len, "%s", ibr_root_strategy_name(c->root.strategy));
}

static int parse_root_fallback(struct ibr_plugin_conf *c, const char *v)
{
	return ibr_root_fallback_parse(v, &c->root_fallback);
}

static void print_root_fallback(const struct ibr_plugin_conf *c, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s", ibr_root_fallback_name(c->root_fallback));
}

static int parse_port_choice(struct ibr_plugin_conf *c, const char *v)
{
	return ibr_port_choice_parse(v, &c->port_choice);
}

static void print_port_choice(const struct ibr_plugin_conf *c, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%s", ibr_port_choice_name(c->port_choice));
}

static int parse_verify_before_push(struct ibr_plugin_conf *c, const char *v)
{
	return parse_bool(v, &c->verify_before_push);
}

static void print_verify_before_push(const struct ibr_plugin_conf *c,
				     char *buf, size_t len)
{
	print_bool(c->verify_before_push, buf, len);
}

static int parse_verify_method(struct ibr_plugin_conf *c, const char *v)
{
	if (strcmp(v, "certificate") == 0)
		c->verify_method = IBR_VERIFY_CERTIFICATE;
	else if (strcmp(v, "full") == 0)
		c->verify_method = IBR_VERIFY_FULL;
	else
		return -1;
	return 0;
}

static void print_verify_method(const struct ibr_plugin_conf *c, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s", c->verify_method == IBR_VERIFY_FULL ?
		 "full" : "certificate");
}

/* Any path; empty: no dumps.  A path is kept whole (up to PATH_MAX). */
static int parse_dump_dir(struct ibr_plugin_conf *c, const char *v)
{
	char *copy = NULL;

	if (strlen(v) >= 4096)
		return -1;
	if (*v && !(copy = strdup(v)))
		return -1;
	free(c->dump_dir);
	c->dump_dir = copy;
	return 0;
}

static void print_dump_dir(const struct ibr_plugin_conf *c, char *buf,
			   size_t len)
{
	if (c->dump_dir)
		ibr_escape_str(c->dump_dir, buf, len);
	else
		snprintf(buf, len, "(none)");
}

static int parse_sa_designated_dlids(struct ibr_plugin_conf *c, const char *v)
{
	return parse_bool(v, &c->sa_designated_dlids);
}

static void print_sa_designated_dlids(const struct ibr_plugin_conf *c,
				      char *buf, size_t len)
{
	print_bool(c->sa_designated_dlids, buf, len);
}

static int parse_hybrid_final_delay(struct ibr_plugin_conf *c, const char *v)
{
	char *end;
	unsigned long ms;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	ms = strtoul(v, &end, 10);
	if (*end != '\0' || errno || ms > 600000)
		return -1;
	c->hybrid_final_delay_ms = (unsigned)ms;
	return 0;
}

static void print_hybrid_final_delay(const struct ibr_plugin_conf *c,
				     char *buf, size_t len)
{
	snprintf(buf, len, "%u", c->hybrid_final_delay_ms);
}

static int parse_transition(struct ibr_plugin_conf *c, const char *v)
{
	if (strcmp(v, "double_scheme") == 0)
		c->transition_double_scheme = true;
	else if (strcmp(v, "safe_steps") == 0)
		c->transition_double_scheme = false;
	else
		return -1;
	return 0;
}

static void print_transition(const struct ibr_plugin_conf *c, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%s", c->transition_double_scheme ?
		 "double_scheme" : "safe_steps");
}

/* threads: auto (0, the CPUs OpenSM's process may use) or 1..256 */
static int parse_threads(struct ibr_plugin_conf *c, const char *v)
{
	char *end;
	unsigned long n;

	if (strcmp(v, "auto") == 0) {
		c->threads = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || errno || n < 1 || n > IBR_CONF_MAX_THREADS)
		return -1;
	c->threads = (unsigned)n;
	return 0;
}

static void print_threads(const struct ibr_plugin_conf *c, char *buf,
			  size_t len)
{
	if (c->threads)
		snprintf(buf, len, "%u", c->threads);
	else
		snprintf(buf, len, "auto");
}

static const struct conf_key keys[] = {
	{ "root", "IB01", "expected a switch GUID or auto, sm, lowest-lid, "
	  "center", parse_root, print_root },
	{ "root_fallback", "IB29", "expected next or refuse",
	  parse_root_fallback, print_root_fallback },
	{ "port_choice", "IB36", "expected balanced or lowest",
	  parse_port_choice, print_port_choice },
	{ "verify_before_push", "IB02", "expected yes or no",
	  parse_verify_before_push, print_verify_before_push },
	{ "verify_method", "IB07", "expected certificate or full",
	  parse_verify_method, print_verify_method },
	{ "dump_dir", "IB31", "expected a directory (under 4096 bytes)",
	  parse_dump_dir, print_dump_dir },
	{ "sa_designated_dlids", "IB05", "expected yes or no",
	  parse_sa_designated_dlids, print_sa_designated_dlids },
	{ "hybrid_final_delay", "IB08", "expected milliseconds, 0 to 600000",
	  parse_hybrid_final_delay, print_hybrid_final_delay },
	{ "transition", "IB38", "expected double_scheme or safe_steps",
	  parse_transition, print_transition },
	{ "threads", "IB44", "expected auto or a number of threads, 1 to 256",
	  parse_threads, print_threads },
};

#define NUM_KEYS (sizeof(keys) / sizeof(keys[0]))

/* ---- messages ------------------------------------------------------- */

static void add_message(struct ibr_conf_messages *msgs, unsigned line,
			const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_message(struct ibr_conf_messages *msgs, unsigned line,
			const char *code, const char *fmt, ...)
{
	struct ibr_conf_message *m;
	va_list ap;

	if (msgs->count == IBR_CONF_MAX_MESSAGES) {
		msgs->dropped++;
		return;
	}
	m = &msgs->item[msgs->count++];
	m->line = line;
	snprintf(m->code, sizeof(m->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
}

/* s escaped, its first QUOTE_BYTES bytes at most, "..." when cut. */
static char *quote(const char *s, char buf[QUOTE_LEN])
{
	size_t n = strnlen(s, QUOTE_BYTES + 1);

	ibr_escape(s, n > QUOTE_BYTES ? QUOTE_BYTES : n, buf, QUOTE_LEN - 3);
	if (n > QUOTE_BYTES)
		strcat(buf, "...");
	return buf;
}

/* ---- engine options ------------------------------------------------- */

/* `ENGINE_KEY VALUE`: option KEY of a registered engine.  Returns -1 when
 * the key names no engine (an unknown key). */
static int apply_engine_option(struct ibr_plugin_conf *c,
			       struct ibr_conf_messages *msgs, unsigned line,
			       const char *key, const char *value)
{
	for (unsigned i = 0; i < IBR_CONF_MAX_ENGINES && c->engines &&
			     c->engines[i]; i++) {
		const struct ibr_engine *e = c->engines[i];
		size_t n = strlen(e->name);
		struct ibr_options one = { 0 };
		struct ibr_error err = { "" };
		char qk[QUOTE_LEN], qv[QUOTE_LEN], why[sizeof(err.msg) * 2];
		if (strncmp(key, e->name, n) != 0 || key[n] != '_')
			continue;
		if (ibr_options_add(&one, key + n + 1, value, &err) ||
		    ibr_options_check(&one, e, &err) ||
		    ibr_options_add(&c->engine[i], key + n + 1, value, &err))
			/* the engine's message quotes the value: escaped too */
			add_message(msgs, line, "IB06", "%s \"%s\": %s; using "
				    "the default", quote(key, qk),
				    quote(value, qv),
				    ibr_escape_str(err.msg, why, sizeof(why)));
		return 0;
	}
	return -1;
}

static void unknown_key(struct ibr_conf_messages *msgs, unsigned line,
			const char *key, const char *value)
{
	char known[320] = "", qk[QUOTE_LEN], qv[QUOTE_LEN];

	for (size_t k = 0; k < NUM_KEYS; k++) {
		strncat(known, keys[k].name, sizeof(known) - strlen(known) - 1);
		strncat(known, ", ", sizeof(known) - strlen(known) - 1);
	}
	add_message(msgs, line, "IB03", "unknown key \"%s\" (value \"%s\") "
		    "ignored; known keys: %sand ENGINE_OPTION for the options "
		    "`ibrouting engines` lists", quote(key, qk), quote(value, qv),
		    known);
}

static void apply(struct ibr_plugin_conf *c, struct ibr_conf_messages *msgs,
		  unsigned line, const char *key, const char *value)
{
	for (size_t k = 0; k < NUM_KEYS; k++) {
		char qv[QUOTE_LEN], now[VALUE_TEXT];
		if (strcmp(key, keys[k].name) != 0)
			continue;
		if (keys[k].parse(c, value) == 0)
			return;
		keys[k].print(c, now, sizeof(now));
		add_message(msgs, line, keys[k].code, "%s \"%s\": %s; using %s",
			    keys[k].name, quote(value, qv), keys[k].expected, now);
		return;
	}
	if (apply_engine_option(c, msgs, line, key, value) != 0)
		unknown_key(msgs, line, key, value);
}

/* ---- lines ------------------------------------------------------------ */

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

/* One line (no \n, NUL-terminated in place, may hold no NUL): key, value,
 * comment. */
static void parse_line(struct ibr_plugin_conf *c, struct ibr_conf_messages *msgs,
		       unsigned line, char *s)
{
	char *key, *value, *end;

	while (is_blank(*s))
		s++;
	/* a `#` that starts a word starts the comment */
	for (char *p = s; *p; p++)
		if (*p == '#' && (p == s || is_blank(p[-1]))) {
			*p = '\0';
			break;
		}
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		*--end = '\0';
	if (*s == '\0')
		return;
	key = s;
	value = s;
	while (*value && !is_blank(*value))
		value++;
	if (*value)
		*value++ = '\0';
	while (is_blank(*value))
		value++;
	apply(c, msgs, line, key, value);
}

void ibr_plugin_conf_defaults(struct ibr_plugin_conf *c,
			      const struct ibr_engine *const *engines)
{
	memset(c, 0, sizeof(*c));
	c->engines = engines;
	c->root.strategy = IBR_ROOT_AUTO;
	c->root_fallback = IBR_ROOT_FALLBACK_NEXT;
	c->port_choice = IBR_PORT_BALANCED;
	c->verify_before_push = true;
	c->verify_method = IBR_VERIFY_CERTIFICATE;
	c->sa_designated_dlids = true;
}

int ibr_plugin_conf_parse(const char *text, size_t len,
			  struct ibr_plugin_conf *c,
			  struct ibr_conf_messages *msgs)
{
	size_t start = 0;
	unsigned line = 0;
	char *buf = NULL;
	size_t cap = 0;

	msgs->count = 0;
	msgs->dropped = 0;
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t n = nl ? (size_t)(nl - (text + start)) : len - start;
		line++;
		if (memchr(text + start, '\0', n)) {
			add_message(msgs, line, "IB32", "the line holds a NUL "
				    "byte: not text; ignored");
		} else {
			if (n + 1 > cap) {
				char *bigger = realloc(buf, n + 1);
				if (!bigger) {
					free(buf);
					return -1;
				}
				buf = bigger;
				cap = n + 1;
			}
			memcpy(buf, text + start, n);
			buf[n] = '\0';
			parse_line(c, msgs, line, buf);
		}
		start += n + 1;
	}
	free(buf);
	return 0;
}

void ibr_plugin_conf_free(struct ibr_plugin_conf *c)
{
	free(c->dump_dir);
	c->dump_dir = NULL;
}

/* ---- differences and descriptions ------------------------------------ */

static const char *engine_value(const struct ibr_options *o, const char *key)
{
	for (unsigned i = 0; i < o->count; i++)
		if (strcmp(o->item[i].key, key) == 0)
			return o->item[i].value;
	return NULL;
}

/* Engine e's options set in a but differing in b (or unset there). */
static unsigned diff_engine(const struct ibr_engine *e,
			    const struct ibr_options *a,
			    const struct ibr_options *b, bool a_is_prior,
			    void (*fn)(void *, const char *, const char *,
				       const char *), void *cxt)
{
	unsigned n = 0;

	for (unsigned k = 0; k < a->count; k++) {
		const char *other = engine_value(b, a->item[k].key);
		char key[IBR_OPTION_KEY_LEN + 32], va[QUOTE_LEN], vb[QUOTE_LEN];
		if (other && (strcmp(other, a->item[k].value) == 0 || !a_is_prior))
			continue;   /* equal, or reported from the old side */
		snprintf(key, sizeof(key), "%s_%s", e->name, a->item[k].key);
		quote(a->item[k].value, va);
		if (other)
			quote(other, vb);
		else
			snprintf(vb, sizeof(vb), "(default)");
		if (a_is_prior)
			fn(cxt, key, va, vb);
		else
			fn(cxt, key, vb, va);
		n++;
	}
	return n;
}

unsigned ibr_plugin_conf_diff(const struct ibr_plugin_conf *old,
			      const struct ibr_plugin_conf *now,
			      void (*fn)(void *cxt, const char *key,
					 const char *old_value,
					 const char *new_value),
			      void *cxt)
{
	unsigned n = 0;

	for (size_t k = 0; k < NUM_KEYS; k++) {
		char a[VALUE_TEXT * 4], b[VALUE_TEXT * 4];
		keys[k].print(old, a, sizeof(a));
		keys[k].print(now, b, sizeof(b));
		if (strcmp(a, b) != 0) {
			fn(cxt, keys[k].name, a, b);
			n++;
		}
	}
	for (unsigned i = 0; i < IBR_CONF_MAX_ENGINES && old->engines &&
			     old->engines[i]; i++) {
		const struct ibr_engine *e = old->engines[i];
		/* changed or removed, from the old side; added, from the new */
		n += diff_engine(e, &old->engine[i], &now->engine[i], true, fn,
				 cxt);
		n += diff_engine(e, &now->engine[i], &old->engine[i], false, fn,
				 cxt);
	}
	return n;
}

char *ibr_plugin_conf_describe(const struct ibr_plugin_conf *c, char *buf,
			       size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < NUM_KEYS && used < len; k++) {
		char v[VALUE_TEXT];
		keys[k].print(c, v, sizeof(v));
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s",
					 k ? ", " : "", keys[k].name, v);
	}
	for (unsigned i = 0; i < IBR_CONF_MAX_ENGINES && c->engines &&
			     c->engines[i]; i++)
		for (unsigned k = 0; k < c->engine[i].count && used < len; k++) {
			char v[QUOTE_LEN];
			used += (size_t)snprintf(buf + used, len - used,
						 ", %s_%s %s", c->engines[i]->name,
						 c->engine[i].item[k].key,
						 quote(c->engine[i].item[k].value, v));
		}
	return buf;
}
