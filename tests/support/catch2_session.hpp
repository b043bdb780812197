// Runs the Catch2 cases linked into the binary (catch2_session.cpp): Catch2 v2
// declares its Session only where its implementation is compiled. No Catch2
// header here: catch2_main.cpp serves the v2 and the v3 binaries alike.
#pragma once

namespace mlt_test {
int run_catch2(int argc, char** argv);
}
