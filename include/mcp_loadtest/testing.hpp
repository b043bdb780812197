// Picks the adapter for whichever test framework was included first.
#pragma once

#if defined(DOCTEST_LIBRARY_INCLUDED)
#include <mcp_loadtest/doctest.hpp>
#elif defined(CATCH_VERSION_MAJOR) || defined(CATCH_TEST_MACROS_HPP_INCLUDED)
#include <mcp_loadtest/catch2.hpp>
#elif defined(GTEST_TEST)
#include <mcp_loadtest/gtest.hpp>
#else
#error "include doctest, Catch2 or GoogleTest before <mcp_loadtest/testing.hpp>"
#endif
