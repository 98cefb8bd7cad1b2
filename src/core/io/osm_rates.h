/*
 * osm_rates.h - a link's width and speed as OpenSM's opensm-subnet.lst
 * writes them (osm_dump.c, dump_topology_node): "PHY=4x LOG=ACT SPD=10",
 * the width in lanes and the speed as a lane's Gb/s, FDR10 by name.
 * One table for the dump writer and reader, so what one writes the other
 * reads back.  OpenSM 3.3.23 prints "??" for what it does not know (NDR
 * among them); ours writes NDR as "100", the next of its Gb/s, and reads
 * "??" as unknown.
 */
#ifndef IBROUTING_IO_OSM_RATES_H
#define IBROUTING_IO_OSM_RATES_H

#include <stddef.h>
#include <string.h>

#include "ibrouting/fabric.h"

static const char *const osm_speed_texts[IBR_SPEED_COUNT] = {
	[IBR_SPEED_SDR] = "2.5", [IBR_SPEED_DDR] = "5",
	[IBR_SPEED_QDR] = "10", [IBR_SPEED_FDR10] = "FDR10",
	[IBR_SPEED_FDR] = "14", [IBR_SPEED_EDR] = "25",
	[IBR_SPEED_HDR] = "50", [IBR_SPEED_NDR] = "100",
};

/* SPD=: "10" for QDR; NULL for IBR_SPEED_UNKNOWN. */
static inline const char *osm_speed_text(unsigned speed)
{
	return speed < IBR_SPEED_COUNT ? osm_speed_texts[speed] : NULL;
}

/* The speed SPD= names in the len characters at s; unknown if none. */
static inline enum ibr_link_speed osm_speed_parse(const char *s, size_t len)
{
	for (unsigned i = IBR_SPEED_SDR; i < IBR_SPEED_COUNT; i++)
		if (strlen(osm_speed_texts[i]) == len &&
		    memcmp(s, osm_speed_texts[i], len) == 0)
			return (enum ibr_link_speed)i;
	return IBR_SPEED_UNKNOWN;
}

/* PHY=: lanes from "1x", "2x", "4x", "8x", "12x" in the len characters
 * at s; 0 for anything else ("??"). */
static inline unsigned osm_width_parse(const char *s, size_t len)
{
	static const char *const texts[] = { "1x", "2x", "4x", "8x", "12x" };
	static const unsigned lanes[] = { 1, 2, 4, 8, 12 };

	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
		if (strlen(texts[i]) == len && memcmp(s, texts[i], len) == 0)
			return lanes[i];
	return 0;
}

#endif
