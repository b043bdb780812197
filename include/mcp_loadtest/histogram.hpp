// Latency histogram with HdrHistogram's exact bucket layout: O(1) recording, exact merging,
// an exact mergeable JSON form, and HdrHistogram V2 (base64) encoding for its log tools.
//
// Values are recorded in whole microseconds (HdrHistogram's convention for latencies, with
// lowest discernible value 1 us, highest trackable value 1 hour, 3 significant digits), so every
// figure derived from the buckets is what HdrHistogram itself would report, times 1000. Count,
// min, max and mean are kept exactly, in nanoseconds, alongside the buckets.
#pragma once

// One header per concern: the histogram, its JSON form, its HdrHistogram V2 log codec.
#include <mcp_loadtest/histogram/hdr_v2.hpp>
#include <mcp_loadtest/histogram/json.hpp>
#include <mcp_loadtest/histogram/latency_histogram.hpp>
