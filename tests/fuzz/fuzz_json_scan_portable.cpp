// libFuzzer harness: fuzz_json_scan.cpp over the scanner's portable string search (8 bytes per
// step, no SSE2), which this x86-64 CI would otherwise never run: machines without SSE2 do. Its
// seed corpus is json_scan's.
#define MCP_LOADTEST_NO_SIMD 1
#include "fuzz_json_scan.cpp"
