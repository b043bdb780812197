// mcp_loadtest::separate, part "protocol": strict validation, the protocol fuzzer and call_every_tool().
// Every impl/*.ipp is in exactly one part (tests/check_library_parts.py).
#include <mcp_loadtest/impl/part.hpp>

#include <mcp_loadtest/detail/impl/fuzz_corpus.ipp>
#include <mcp_loadtest/detail/impl/schema_arguments.ipp>
#include <mcp_loadtest/impl/call_every_tool.ipp>
#include <mcp_loadtest/impl/fuzz.ipp>
#include <mcp_loadtest/impl/fuzz_report.ipp>
#if __has_include(<valijson/validator.hpp>)  // strict validation needs valijson, as in impl/src.hpp
#include <mcp_loadtest/detail/impl/json_schema_check.ipp>
#include <mcp_loadtest/impl/strict.ipp>
#endif
