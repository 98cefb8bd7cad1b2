/*
 * registry.c - the one list of routing engines (see engine.h).
 *
 * Adding an engine is one file defining its struct ibr_engine, one line
 * here and its tests: the plugin, the CLI and the test tables all read
 * this list.
 */
#include <stdio.h>
#include <string.h>

#include "ibrouting/engine.h"
#include "engines/engines.h"

const struct ibr_engine *const ibr_engines[] = {
	&ibr_engine_pira,
	&ibr_engine_fera,
	&ibr_engine_dr,
	&ibr_engine_colorl,
	NULL,
};

const struct ibr_engine *ibr_engine_find(const char *name)
{
	for (unsigned i = 0; ibr_engines[i]; i++)
		if (strcmp(ibr_engines[i]->name, name) == 0)
			return ibr_engines[i];
	return NULL;
}

const char *ibr_engine_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; ibr_engines[i] && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 ibr_engines[i]->name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}
