// Definitions of detail/detectors/fuzz_corpus.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/detectors/fuzz_corpus.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::vector<fuzz_input> envelope_corpus(std::string_view tool, const json& valid_arguments,
                                               std::uint64_t first_id) {
    std::vector<fuzz_input> out;
    std::uint64_t next = first_id;
    const std::string name_json = json(std::string(tool)).dump();
    const std::string args_json = valid_arguments.dump(-1, ' ', false, json::error_handler_t::replace);
    const auto id_of = [&] { return std::to_string(next); };
    const auto add = [&](const char* category, std::string name, std::string bytes, fuzz_expectation e,
                         std::optional<json> reply_id) {
        out.push_back({category, std::move(name), std::move(bytes), e, std::move(reply_id), false});
    };
    // A request with this id whose params are `params`.
    const auto request = [&](std::string_view method, std::string_view params) {
        std::string s = R"({"jsonrpc":"2.0","id":)" + id_of() + R"(,"method":)" + json(std::string(method)).dump();
        if (!params.empty()) s += ",\"params\":" + std::string(params);
        return s + "}";
    };
    const auto call_with = [&](std::string_view arguments_member) {
        return request("tools/call", "{\"name\":" + name_json + (arguments_member.empty() ? "" : ",") +
                                         std::string(arguments_member) + "}");
    };
    const auto numbered = [&](const char* category, std::string name, std::string bytes, fuzz_expectation e) {
        add(category, std::move(name), std::move(bytes), e, json(next));
        ++next;
    };
    const auto unreadable = [&](const char* category, std::string name, std::string bytes, fuzz_expectation e) {
        add(category, std::move(name), std::move(bytes), e, json(nullptr));
        ++next;
    };

    // ---- not JSON: -32700 with id null (JSON-RPC 2.0 §5.1)
    const std::string valid_call = call_with("\"arguments\":" + args_json);
    unreadable("json", "truncated request", valid_call.substr(0, valid_call.size() / 2), fuzz_expectation::parse_error);
    unreadable("json", "trailing garbage", call_with("\"arguments\":" + args_json) + "}}garbage",
               fuzz_expectation::parse_error);
    unreadable("json", "single quotes", "{'jsonrpc':'2.0','id':" + id_of() + ",'method':'ping'}",
               fuzz_expectation::parse_error);
    unreadable("json", "a bare word", "hello", fuzz_expectation::parse_error);
    unreadable("json", "trailing comma", R"({"jsonrpc":"2.0","id":)" + id_of() + R"(,"method":"ping",})",
               fuzz_expectation::parse_error);
    unreadable("json", "unterminated string", R"({"jsonrpc":"2.0","id":)" + id_of() + R"(,"method":"ping)",
               fuzz_expectation::parse_error);
    unreadable("json", "empty object then more", "{}{}", fuzz_expectation::parse_error);

    // ---- JSON, not a request object: -32600 (§5.1; id null when it cannot be read)
    unreadable("envelope", "an empty object", "{}", fuzz_expectation::invalid_request);
    unreadable("envelope", "a string", "\"ping\"", fuzz_expectation::invalid_request);
    unreadable("envelope", "a number", "42", fuzz_expectation::invalid_request);
    unreadable("envelope", "null", "null", fuzz_expectation::invalid_request);
    numbered("envelope", "jsonrpc missing", R"({"id":)" + id_of() + R"(,"method":"ping"})",
             fuzz_expectation::invalid_request);
    numbered("envelope", "jsonrpc is 1.0 (a number)", R"({"jsonrpc":1.0,"id":)" + id_of() + R"(,"method":"ping"})",
             fuzz_expectation::invalid_request);
    numbered("envelope", "jsonrpc is \"1.0\"", R"({"jsonrpc":"1.0","id":)" + id_of() + R"(,"method":"ping"})",
             fuzz_expectation::invalid_request);
    // An unreadable id: the answer carries id null.
    unreadable("id", "id is an object", R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
               fuzz_expectation::invalid_request);
    unreadable("id", "id is an array", R"({"jsonrpc":"2.0","id":[1],"method":"ping"})",
               fuzz_expectation::invalid_request);
    unreadable("id", "id is true", R"({"jsonrpc":"2.0","id":true,"method":"ping"})",
               fuzz_expectation::invalid_request);
    // MCP: "the ID MUST NOT be null" (JSON-RPC only discourages it).
    unreadable("id", "id is null", R"({"jsonrpc":"2.0","id":null,"method":"ping"})",
               fuzz_expectation::invalid_request);
    // Legal ids JSON-RPC allows (fractions only "SHOULD NOT"): any reply under that id.
    add("id", "id is 2^64 + 5", R"({"jsonrpc":"2.0","id":18446744073709551621,"method":"ping"})",
        fuzz_expectation::any_reply, json::parse("18446744073709551621"));
    add("id", "id is negative", R"({"jsonrpc":"2.0","id":-7,"method":"ping"})", fuzz_expectation::any_reply, json(-7));
    add("id", "id is fractional", R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", fuzz_expectation::any_reply,
        json(1.5));
    add("id", "id is a non-ASCII string", "{\"jsonrpc\":\"2.0\",\"id\":\"\xD0\xB8\xD0\xB4-1\",\"method\":\"ping\"}",
        fuzz_expectation::any_reply, json("\xD0\xB8\xD0\xB4-1"));
    add("id", "id is an empty string", R"({"jsonrpc":"2.0","id":"","method":"ping"})", fuzz_expectation::any_reply,
        json(""));
    {
        // MCP: an id "MUST NOT have been previously used": two requests under one id in one write
        // (line transports read two messages). Any answer; it must not crash or mix replies up.
        const std::string twice = request("ping", "") + "\n" + request("ping", "");
        numbered("id", "id reused while in flight", twice, fuzz_expectation::any_reply);
    }

    // ---- method
    numbered("method", "method is a number", R"({"jsonrpc":"2.0","id":)" + id_of() + R"(,"method":42})",
             fuzz_expectation::invalid_request);
    numbered("method", "method is null", R"({"jsonrpc":"2.0","id":)" + id_of() + R"(,"method":null})",
             fuzz_expectation::invalid_request);
    numbered("method", "method missing", R"({"jsonrpc":"2.0","id":)" + id_of() + "}", fuzz_expectation::invalid_request);
    numbered("method", "method is empty", request("", ""), fuzz_expectation::method_not_found);
    numbered("method", "an unknown method", request("tools/frobnicate", "{}"), fuzz_expectation::method_not_found);
    numbered("method", "rpc.discover", request("rpc.discover", ""), fuzz_expectation::method_not_found);
    numbered("method", "a 64 KB method name", request(std::string(65536, 'm'), ""), fuzz_expectation::method_not_found);
    // notifications/initialized carrying an id is a request for a method the server
    // knows only as a notification: it must answer (any reply), not ignore it.
    numbered("notification", "notifications/initialized with an id", request("notifications/initialized", ""),
             fuzz_expectation::any_reply);

    // ---- params: JSON-RPC requires a structured value (else an invalid request)
    numbered("params", "params is a string", request("tools/call", "\"x\""), fuzz_expectation::invalid_request);
    numbered("params", "params is a number", request("tools/call", "1"), fuzz_expectation::invalid_request);
    numbered("params", "tools/call params is an array", request("tools/call", "[" + name_json + "]"),
             fuzz_expectation::invalid_params);
    numbered("params", "tools/call params is null", request("tools/call", "null"),
             fuzz_expectation::invalid_request_or_params);
    numbered("params", "tools/call without params", request("tools/call", ""), fuzz_expectation::invalid_params);
    numbered("params", "name missing", request("tools/call", "{\"arguments\":" + args_json + "}"),
             fuzz_expectation::invalid_params);
    numbered("params", "name is a number", request("tools/call", "{\"name\":7,\"arguments\":" + args_json + "}"),
             fuzz_expectation::invalid_params);
    numbered("params", "an unknown tool", request("tools/call", R"({"name":"no-such-tool-f7c1","arguments":{}})"),
             fuzz_expectation::invalid_params);

    // ---- arguments: an object or absent (MCP CallToolRequest)
    numbered("arguments", "arguments is null", call_with("\"arguments\":null"), fuzz_expectation::invalid_params);
    numbered("arguments", "arguments is an array", call_with("\"arguments\":[1,2]"), fuzz_expectation::invalid_params);
    numbered("arguments", "arguments is a string", call_with("\"arguments\":\"x\""), fuzz_expectation::invalid_params);
    numbered("arguments", "arguments is a number", call_with("\"arguments\":3"), fuzz_expectation::invalid_params);
    numbered("arguments", "arguments missing", call_with(""), fuzz_expectation::any_reply);
    numbered("arguments", "every argument null", [&] {
        json nulls = json::object();
        if (valid_arguments.is_object())
            for (const auto& [k, v] : valid_arguments.items()) nulls[k] = nullptr;
        return call_with("\"arguments\":" + nulls.dump());
    }(), fuzz_expectation::any_reply);

    // ---- batches: MCP 2025-06-18 and later have none, 2025-03-26 has them; any answer
    // (an array of replies, or one error) is fine, silence is not.
    {
        const std::string first = request("ping", "");
        ++next;
        const std::string second = request("ping", "");
        unreadable("batch", "a batch of two requests", "[" + first + "," + second + "]", fuzz_expectation::any_reply);
    }
    unreadable("batch", "an empty batch", "[]", fuzz_expectation::invalid_request);

    // ---- sizes and nesting: valid JSON a parser may choke on
    {
        std::string deep = std::string(10000, '[') + std::string(10000, ']');
        numbered("nesting", "an argument nested 10,000 deep", call_with("\"arguments\":{\"message\":" + deep + "}"),
                 fuzz_expectation::any_reply);
        std::string deep_objects;
        for (int i = 0; i < 5000; ++i) deep_objects += "{\"a\":";
        deep_objects += "1" + std::string(5000, '}');
        numbered("nesting", "params nested 5,000 objects deep", request("ping", deep_objects),
                 fuzz_expectation::any_reply);
        json big = valid_arguments.is_object() ? valid_arguments : json::object();
        big["message"] = std::string(1 << 20, 'x');
        numbered("strings", "a 1 MB string argument", call_with("\"arguments\":" + big.dump()),
                 fuzz_expectation::any_reply);
        json many = valid_arguments.is_object() ? valid_arguments : json::object();
        for (int i = 0; i < 10000; ++i) many["extra" + std::to_string(i)] = i;
        numbered("strings", "10,000 extra arguments", call_with("\"arguments\":" + many.dump()),
                 fuzz_expectation::any_reply);
    }

    // ---- encoding: JSON text is UTF-8 without raw control characters (RFC 8259 §7, §8.1)
    const auto with_message = [&](std::string_view raw_text) {
        return call_with("\"arguments\":{\"message\":\"" + std::string(raw_text) + "\"}");
    };
    unreadable("encoding", "a raw control character in a string", with_message("a\x01" "b"),
               fuzz_expectation::parse_error);
    unreadable("encoding", "a raw tab and NUL in a string", with_message(std::string("a\t\0b", 4)),
               fuzz_expectation::parse_error);
    unreadable("encoding", "a lone UTF-8 lead byte", with_message("caf\xC3"), fuzz_expectation::parse_error);
    unreadable("encoding", "0xFF bytes", with_message("\xFF\xFE"), fuzz_expectation::parse_error);
    unreadable("encoding", "an overlong encoding of '/'", with_message("\xC0\xAF"), fuzz_expectation::parse_error);
    unreadable("encoding", "an encoded surrogate (CESU-8)", with_message("\xED\xA0\x80"),
               fuzz_expectation::parse_error);
    // An escaped lone surrogate is valid JSON syntax (RFC 8259 §8.2 leaves it to the parser).
    numbered("encoding", "an escaped lone surrogate", with_message("\\ud800"), fuzz_expectation::any_reply);
    // RFC 8259 §8.1: a parser "MAY ignore the presence of a byte order mark rather than treating it as an error".
    numbered("encoding", "a byte-order mark first", "\xEF\xBB\xBF" + request("ping", ""), fuzz_expectation::any_reply);

    // ---- notifications and responses: never answered
    add("notification", "an unknown notification", R"({"jsonrpc":"2.0","method":"notifications/frobnicated"})",
        fuzz_expectation::no_reply, std::nullopt);
    add("notification", "cancelled for a request never sent",
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"no-such-request"}})",
        fuzz_expectation::no_reply, std::nullopt);
    add("notification", "progress for an unknown token",
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nope","progress":1}})",
        fuzz_expectation::no_reply, std::nullopt);
    add("notification", "a response to a request the server never sent",
        R"({"jsonrpc":"2.0","id":"never-sent-7","result":{}})", fuzz_expectation::no_reply, std::nullopt);
    add("notification", "an error response nobody asked for",
        R"({"jsonrpc":"2.0","id":"never-sent-8","error":{"code":-32000,"message":"x"}})", fuzz_expectation::no_reply,
        std::nullopt);

    // ---- lifecycle: before initialize (sent on a connection of its own)
    {
        fuzz_input before;
        before.category = "lifecycle";
        before.name = "tools/list before initialize";
        before.bytes = request("tools/list", "{}");
        before.expect = fuzz_expectation::any_reply;
        before.reply_id = json(next++);
        before.needs_fresh_session = true;
        out.push_back(std::move(before));
    }
    numbered("lifecycle", "initialize again", request("initialize", R"({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}})"),
             fuzz_expectation::any_reply);
    return out;
}

}  // namespace mcp_loadtest::detail
