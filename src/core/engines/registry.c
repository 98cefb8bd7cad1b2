/*
 * registry.c - the one list of routing engines (see engine.h).
 *
 * Adding an engine is one file defining its struct ibr_engine, one line
 * here and its tests: the plugin, the CLI and the test tables all read
 * this list.  The hybrids the plugin always registers are listed here too,
 * so `ibrouting engines` lists what OpenSM will find, and the fallback
 * engine the prior tables are mended with is named here, once.
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


const char *const ibr_default_hybrids[] = {
	"pira+fera", "pira+dr", "pira+colorl", NULL,
};

int ibr_hybrid_split(const char *name, size_t len,
		     const struct ibr_engine **provisional,
		     const struct ibr_engine **final)
{
	const char *plus = memchr(name, '+', len);
	char a[32], b[32];
	size_t la, lb;

	if (!plus || plus == name)
		return -1;
	la = (size_t)(plus - name);
	lb = len - la - 1;
	if (la >= sizeof(a) || lb >= sizeof(b))
		return -1;
	memcpy(a, name, la);
	a[la] = '\0';
	memcpy(b, plus + 1, lb);
	b[lb] = '\0';
	*provisional = ibr_engine_find(a);
	*final = ibr_engine_find(b);
	return *provisional && *final ? 0 : -1;
}

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
