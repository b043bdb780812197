// libFuzzer harness: the JSON-RPC envelope scanner and writer (detail/wire/json_scan.hpp), against
// nlohmann::json as the reference. The scanner must accept exactly the valid JSON texts (up to its
// nesting limit), and on a valid object report the same top-level members nlohmann finds; its fast
// path for valid objects must report exactly what its exact path does, on any input. The
// writer (append_json_string, begin_request) must produce JSON that both read back.
#include "fuzz_support.hpp"

#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <vector>

namespace d = mcp_loadtest::detail;
using json = nlohmann::json;

namespace {

// Records whether any object holds the same member name twice (nlohmann keeps the last one
// silently; the scanner must not pick a different one and complete the wrong call).
struct duplicate_finder : nlohmann::json_sax<json> {
    std::vector<std::set<std::string>> keys;
    int depth = 0;
    int max_depth = 0;
    bool duplicate = false;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
        keys.emplace_back();
        max_depth = std::max(max_depth, ++depth);
        return true;
    }
    bool key(string_t& k) override {
        duplicate = duplicate || !keys.back().insert(k).second;
        return true;
    }
    bool end_object() override {
        keys.pop_back();
        --depth;
        return true;
    }
    bool start_array(std::size_t) override {
        max_depth = std::max(max_depth, ++depth);
        return true;
    }
    bool end_array() override {
        --depth;
        return true;
    }
    int error_id = 0;
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        error_id = e.id;
        return false;
    }
};

// Nesting depth of a text, counting brackets outside strings (for texts nlohmann rejects).
int nesting(std::string_view s) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return deepest;
}

void check_member(std::string_view line, const json& j, const char* name, d::span got) {
    const auto it = j.find(name);
    FUZZ_CHECK(got.present() == (it != j.end()), std::string(name) + " presence differs in " + fuzz::shown(line));
    if (it == j.end()) return;
    const json scanned = json::parse(got.in(line), nullptr, false);
    FUZZ_CHECK(!scanned.is_discarded() && scanned == *it,
               std::string(name) + ": scanner " + fuzz::shown(got.in(line)) + ", nlohmann " + it->dump());
}

void check_envelope(std::string_view line) {
    const d::envelope env = d::envelope_scanner::scan(line);
    // The fast path for valid objects reports exactly what the exact path does, on any line.
    FUZZ_CHECK(env == d::envelope_scanner::scan_exact(line),
               "scan() and scan_exact() differ on " + fuzz::shown(line));
    if (!env.valid) FUZZ_CHECK(env.error_offset <= line.size());
    // A JSON text never holds a NUL byte (not even in a string); nlohmann stops reading at one,
    // so it cannot be the reference for such lines.
    if (line.find('\0') != std::string_view::npos) {
        FUZZ_CHECK(!env.valid, "a NUL byte in a valid text: " + fuzz::shown(line));
        return;
    }
    duplicate_finder sax;
    const bool accepted = json::sax_parse(line, &sax, json::input_format_t::json, true, false);
    if (env.valid != accepted) {
        // Allowed differences: the scanner's nesting limit (512), and numbers nlohmann cannot hold
        // in a double (1E400 is valid JSON; nlohmann refuses it with out_of_range 406).
        if (env.valid && sax.error_id == 406) return;
        FUZZ_CHECK(accepted && !env.valid && nesting(line) >= 511,
                   std::string("scanner says ") + (env.valid ? "valid" : "invalid") + ", nlohmann says " +
                       (accepted ? "valid" : "invalid") + ": " + fuzz::shown(line));
        return;
    }
    if (!accepted) return;
    const json j = json::parse(line);
    FUZZ_CHECK(env.is_object == j.is_object());
    if (!j.is_object()) return;
    if (sax.duplicate) return;  // see issue 15 item 6: the scanner's answer for these is being defined
    // Members are compared as nlohmann decodes them; the scanner matches names as written, so a
    // name spelled with escapes ("\u0069d") is a different member to it: skip those lines.
    if (line.find('\\') != std::string_view::npos) return;
    check_member(line, j, "id", env.id);
    check_member(line, j, "result", env.result);
    check_member(line, j, "error", env.error);
    check_member(line, j, "params", env.params);
    const auto id = j.find("id");
    FUZZ_CHECK(env.id_is_integer == (id != j.end() && id->is_number_unsigned()), "id " + fuzz::shown(line));
    if (env.id_is_integer) FUZZ_CHECK(env.id_value == id->get<std::uint64_t>());
    const auto rpc = j.find("jsonrpc");
    FUZZ_CHECK(env.jsonrpc_20 == (rpc != j.end() && *rpc == "2.0"));
    const auto method = j.find("method");
    const bool method_text = method != j.end() && method->is_string() && !method->get<std::string>().empty();
    FUZZ_CHECK(env.method.present() == method_text);
    if (method_text) FUZZ_CHECK(env.method.in(line) == method->get<std::string>());
    const auto result = j.find("result");
    FUZZ_CHECK(env.result_is_object == (result != j.end() && result->is_object()));
    const bool flagged = result != j.end() && result->is_object() && result->contains("isError") &&
                         (*result)["isError"] == true;
    FUZZ_CHECK(env.result_is_error_flagged == flagged, "isError " + fuzz::shown(line));
}

void check_writer(std::string_view text) {
    std::string quoted;
    d::append_json_string(quoted, text);
    const json back = json::parse(quoted, nullptr, false);
    // nlohmann rejects invalid UTF-8, which append_json_string passes through as it is.
    if (!back.is_discarded()) FUZZ_CHECK(back == text, "append_json_string " + fuzz::shown(quoted));
    const d::envelope env = d::envelope_scanner::scan(quoted);
    if (!back.is_discarded()) FUZZ_CHECK(env.valid, "the scanner rejects " + fuzz::shown(quoted));

    std::string request;
    const std::uint64_t id = text.size() * 0x9E3779B97F4A7C15ull;
    d::begin_request(request, id, text);
    request += '}';
    const d::envelope r = d::envelope_scanner::scan(request);
    if (!back.is_discarded()) {
        FUZZ_CHECK(r.valid && r.jsonrpc_20 && r.id_is_integer && r.id_value == id, fuzz::shown(request));
        FUZZ_CHECK(json::parse(request)["method"] == text);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view line(reinterpret_cast<const char*>(data), size);
    check_envelope(line);
    check_writer(line);
    return 0;
}
