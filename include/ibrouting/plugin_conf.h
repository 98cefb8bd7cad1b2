/*
 * plugin_conf.h - opensm-plugin.conf parsed: text in, options and
 * messages out; no OpenSM type, no file access (the plugin reads the file,
 * src/osm/options.c; the unit tests and the fuzzer feed text).
 *
 * Format, as opensm.conf: one `key value` per line; the value is the rest
 * of the line, blanks around it trimmed; `#` at the start of a word starts
 * a comment to the end of the line (`key value # why`), so a `#` inside a
 * word (a path) stays; blank lines are skipped.  Lines may be of any
 * length and end in \n, \r\n or the end of the text; a later line of a key
 * wins over an earlier one.
 *
 * Invariants: a bad line never fails the parse: it becomes a message (its
 * line number, the ERR code the plugin logs, a text naming the key and the
 * value, escaped by ibr_escape()), and the value before it stays.  After
 * the parse every option is valid: engine options have passed
 * ibr_options_check() for their engine.
 */
#ifndef IBROUTING_PLUGIN_CONF_H
#define IBROUTING_PLUGIN_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "ibrouting/engine.h"
#include "ibrouting/updown.h"

/* Engines that can take options (the registry's, ibr_engines[]). */
#define IBR_CONF_MAX_ENGINES 16

/* The largest options file the plugin reads (src/osm/options.c): a real
 * one is a few KiB; anything bigger is refused unread, with the defaults,
 * so that a wrong path (a log, /dev/zero) cannot stall OpenSM's start. */
#define IBR_CONF_MAX_BYTES (64 * 1024)

/* The most worker threads `threads` takes (parallel.h's limit). */
#define IBR_CONF_MAX_THREADS 256

/* Messages kept per parse; those beyond are only counted. */
#define IBR_CONF_MAX_MESSAGES 64

/* How the tables are checked before the push (verify_method). */
enum ibr_verify_method {
	IBR_VERIFY_CERTIFICATE,  /* certify.h; the full check if it fails */
	IBR_VERIFY_FULL,         /* verify.h: the channel dependency graph */
};

struct ibr_plugin_conf {
	struct ibr_root_choice root;   /* after root_guid_file in the chain */
	enum ibr_root_fallback root_fallback; /* an unusable root: next link, or refuse */
	enum ibr_port_choice port_choice; /* among the ports an engine's rule allows */
	bool verify_before_push;
	enum ibr_verify_method verify_method;
	char *dump_dir;                /* NULL: no extra dumps */
	bool sa_designated_dlids;      /* the SA hands out designated DLIDs */
	unsigned hybrid_final_delay_ms; /* a hybrid's wait before its next pass */
	/* a hybrid's final pass: safe steps (default) or the Double Scheme
	 * (doc/double-scheme-plugin.md; checked at the hybrid's start) */
	bool transition_double_scheme;
	/* the engines' worker threads; 0: auto, the CPUs OpenSM's process
	 * may use (sched_getaffinity) */
	unsigned threads;
	/* the engines `ENGINE_KEY VALUE` lines name (NULL-terminated: the
	 * registry's, given by the caller) and, per engine engines[i], its
	 * options set */
	const struct ibr_engine *const *engines;
	struct ibr_options engine[IBR_CONF_MAX_ENGINES];
};

struct ibr_conf_message {
	unsigned line;                 /* 1-based */
	char code[8];                  /* the plugin's log code: "IB01" */
	char text[480];                /* "root \"middle\": expected ..." */
};

struct ibr_conf_messages {
	struct ibr_conf_message item[IBR_CONF_MAX_MESSAGES];
	unsigned count;
	unsigned dropped;              /* messages beyond the array */
};

/* The defaults, as with no file at all; `engines` (NULL-terminated, the
 * registry's ibr_engines[]) are those whose options the file may set. */
void ibr_plugin_conf_defaults(struct ibr_plugin_conf *c,
			      const struct ibr_engine *const *engines);

/* Parses len bytes of text (any bytes, NUL included) over c, which holds
 * the defaults or earlier values; every problem lands in msgs (cleared
 * first).  Returns -1 only when out of memory (c keeps what it had). */
int ibr_plugin_conf_parse(const char *text, size_t len,
			  struct ibr_plugin_conf *c,
			  struct ibr_conf_messages *msgs);

void ibr_plugin_conf_free(struct ibr_plugin_conf *c);

/* Calls fn once per option whose value differs between old and new (the
 * defaults of the same engines), with
 * both values as text ("(default)" for an engine option not set), in the
 * order of the key table then the engines.  Returns how many differ. */
unsigned ibr_plugin_conf_diff(const struct ibr_plugin_conf *old,
			      const struct ibr_plugin_conf *now,
			      void (*fn)(void *cxt, const char *key,
					 const char *old_value,
					 const char *new_value),
			      void *cxt);

/* One line for the log: every option and its value, "root sm,
 * verify_before_push yes, ...", cut to len. */
char *ibr_plugin_conf_describe(const struct ibr_plugin_conf *c, char *buf,
			       size_t len);

#endif
