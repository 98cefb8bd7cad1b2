/*
 * timer.h - monotonic wall-clock milliseconds, for the stats of a run.
 */
#ifndef IBROUTING_TIMER_H
#define IBROUTING_TIMER_H

#include <time.h>

static inline double ibr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
