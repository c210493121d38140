// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the weave trace system's events, made once for the module.
 */

#define CREATE_TRACE_POINTS
#include "weave_trace.h"
