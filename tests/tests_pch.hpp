// Precompiled for every doctest test file: the heavy, stable headers.
#pragma once
#include <doctest/doctest.h>
#include <mcp_loadtest/mcp_loadtest.hpp>
#include <asio/experimental/awaitable_operators.hpp>
