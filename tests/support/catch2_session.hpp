// Runs the Catch2 cases linked into the binary (catch2_session.cpp): Catch2 v2
// declares its Session only where its implementation is compiled.
#pragma once

namespace mlt_test {
int run_catch2(int argc, char** argv);
}
