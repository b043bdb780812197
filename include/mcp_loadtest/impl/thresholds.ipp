// Definitions of thresholds.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/thresholds.hpp>

#include <string>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string threshold_violation::describe() const {
    // `actual` may be a sentence of its own (an abort reason): no "..".
    const bool ends_sentence = !actual.empty() && (actual.back() == '.' || actual.back() == '!');
    return metric + ": expected " + expected + ", got " + actual +
           (meaning.empty() ? "" : (ends_sentence ? " " : ". ") + meaning);
}

}  // namespace mcp_loadtest
