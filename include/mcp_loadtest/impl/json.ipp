// Definitions of json.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/json.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL arguments& arguments::operator=(const arguments& o) {
    if (this != &o) {
        owned_ = o.owned_;
        text_ = o.owns() ? &owned_ : o.text_;
    }
    return *this;
}

}  // namespace mcp_loadtest
