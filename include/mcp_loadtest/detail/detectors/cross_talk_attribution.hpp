// Telling whose data a wrong reply carries (detectors/cross_talk.hpp): the
// string values of each request's arguments that no other request has, and a
// search for them in a reply.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// Shorter strings ("a", "id") turn up in replies by chance.
inline constexpr std::size_t min_distinctive_length = 3;

MCP_LOADTEST_DECL void collect_strings(const json& v, std::vector<std::string>& out);

/// One request's argument strings, JSON-escaped (as they appear in a reply's raw text).
struct argument_strings {
    std::vector<std::string> all;
    std::vector<std::string> distinctive;  ///< long enough, and in no other request
};

MCP_LOADTEST_DECL std::vector<argument_strings> distinctive_strings(const std::vector<json>& arguments);

struct carried_strings {
    std::size_t request = 0;
    std::string value;  ///< the longest of that request's strings found
};

/// The other request whose distinctive string `reply_text` contains (the
/// longest such string wins: "user-12" over "user-1"). A string that is part
/// of one of the request's own strings proves nothing and is skipped.
MCP_LOADTEST_DECL std::optional<carried_strings> find_carried_strings(std::size_t own, std::string_view reply_text,
                                                          const std::vector<argument_strings>& strings);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/detectors/impl/cross_talk_attribution.ipp>
#endif
