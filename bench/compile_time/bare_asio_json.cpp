// Compile-time reference: the baseline (bare_asio.cpp, included whole) plus
// nlohmann-json, the library's other public dependency (call_tool's arguments
// and a result are json values), used as a test uses it: one object built and
// written. What a one-case file costs above this is the library's own; above
// bare_asio.cpp it is the library and nlohmann-json's parse together.
#include <nlohmann/json.hpp>

#include "bare_asio.cpp"

TEST_CASE("one json object") {
    const nlohmann::json args = {{"message", "hello"}};
    CHECK(args.dump() == R"({"message":"hello"})");
}
