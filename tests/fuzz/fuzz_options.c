/*
 * fuzz_options.c - libFuzzer target: opensm-plugin.conf's parser
 * (plugin_conf.h) on any bytes.
 *
 * Build (with every source of the core, as tests/fuzz/ builds each
 * target):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -I. \
 *     tests/fuzz/fuzz_options.c $(find src/core -name '*.c') -lm -lglpk
 *
 * Besides the sanitizers' findings it aborts when a contract of the
 * parser breaks: the parse fails other than out of memory, a message is
 * not printable ASCII or names line 0 or a line past the input's last,
 * more messages are kept than IBR_CONF_MAX_MESSAGES, a value the parser
 * accepted is out of its range, or a conf compared with itself differs.
 * Inputs above IBR_CONF_MAX_BYTES are cut there: the plugin never hands
 * the parser more.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/plugin_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_options: %s\n", what);
		abort();
	}
}

static void count_change(void *cxt, const char *key, const char *old_value,
			 const char *new_value)
{
	(void)key;
	(void)old_value;
	(void)new_value;
	(*(unsigned *)cxt)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibr_conf_messages msgs;
	struct ibr_plugin_conf conf, defaults;
	unsigned lines = 1, changes = 0;
	char described[512];

	if (size > IBR_CONF_MAX_BYTES)
		size = IBR_CONF_MAX_BYTES;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	ibr_plugin_conf_defaults(&conf, ibr_engines);
	ibr_plugin_conf_defaults(&defaults, ibr_engines);
	if (ibr_plugin_conf_parse((const char *)data, size, &conf, &msgs) != 0)
		return 0;   /* out of memory: allowed, nothing to check */
	check(msgs.count <= IBR_CONF_MAX_MESSAGES, "too many messages kept");
	for (unsigned m = 0; m < msgs.count; m++) {
		const char *t = msgs.item[m].text;
		check(msgs.item[m].line >= 1 && msgs.item[m].line <= lines,
		      "a message names a line that is not there");
		check(memchr(t, '\0', sizeof(msgs.item[m].text)) != NULL,
		      "a message is not terminated");
		for (; *t; t++)
			check(*t >= 0x20 && *t <= 0x7e,
			      "a message holds a byte that is not printable");
	}
	check(conf.hybrid_final_delay_ms <= 600000, "hybrid_final_delay out of range");
	check(conf.verify_method == IBR_VERIFY_CERTIFICATE ||
	      conf.verify_method == IBR_VERIFY_FULL, "verify_method out of range");
	check(!conf.dump_dir || (*conf.dump_dir && strlen(conf.dump_dir) < 4096),
	      "dump_dir empty or too long");
	for (unsigned e = 0; e < IBR_CONF_MAX_ENGINES && ibr_engines[e]; e++)
		check(ibr_options_check(&conf.engine[e], ibr_engines[e], NULL) == 0,
		      "an engine option the engine refuses");
	check(ibr_plugin_conf_diff(&conf, &conf, count_change, &changes) == 0 &&
	      changes == 0, "a conf differs from itself");
	ibr_plugin_conf_diff(&defaults, &conf, count_change, &changes);
	ibr_plugin_conf_describe(&conf, described, sizeof(described));
	ibr_plugin_conf_free(&conf);
	return 0;
}
