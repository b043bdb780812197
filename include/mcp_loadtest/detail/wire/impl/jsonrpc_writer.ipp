// Definitions of detail/wire/jsonrpc_writer.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>

#include <algorithm>
#include <cstring>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void append_json_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::size_t first = 0;
    while (first < s.size() && !json_escape_table.needs[static_cast<unsigned char>(s[first])]) ++first;
    if (first == s.size()) {  // nothing to escape: the common case
        const std::size_t at = out.size();
        out.resize(at + s.size() + 2);
        char* d = out.data() + at;
        d[0] = '"';
        std::memcpy(d + 1, s.data(), s.size());
        d[s.size() + 1] = '"';
        return;
    }
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                out += "\\u00";
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 0xF]);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

MCP_LOADTEST_DECL void append_uint(std::string& out, std::uint64_t v) {
    char buf[20];
    const std::size_t n = write_uint_backwards(buf + sizeof buf, v);
    out.append(buf + sizeof buf - n, n);
}

MCP_LOADTEST_DECL void begin_request(std::string& out, std::uint64_t id, std::string_view method) {
    using namespace std::string_view_literals;
    out += request_head;
    append_uint(out, id);
    out += R"(,"method":)"sv;
    append_json_string(out, method);
}

MCP_LOADTEST_DECL std::uint32_t write_tool_call(std::string& line, std::uint64_t id, std::string_view name,
                                                 std::string_view arguments_json, request_meta meta) {
    using namespace std::string_view_literals;
    const bool modern = meta.modern_members != nullptr;
    if (!modern && !meta.progress &&
        std::none_of(name.begin(), name.end(), [](char c) { return json_escape_table.needs[static_cast<unsigned char>(c)]; })) {
        // The hot path (legacy era, a plain name): sized once, then copied in
        // place; the constant pieces compile to a few moves each.
        static constexpr std::string_view call = R"(,"method":"tools/call","params":{"name":")";
        static constexpr std::string_view args = R"(","arguments":)";
        static constexpr std::string_view tail = "}}\n";
        char digits[20];
        const std::size_t id_size = write_uint_backwards(digits + sizeof digits, id);
        const char* const first = digits + sizeof digits - id_size;
        // Resized, not cleared: a reused buffer's old bytes are overwritten, and only growth is filled.
        line.resize(request_head.size() + id_size + call.size() + name.size() + args.size() + arguments_json.size() +
                    tail.size());
        char* d = line.data();
        const auto put = [&d](const char* from, std::size_t n) {
            std::memcpy(d, from, n);
            d += n;
        };
        put(request_head.data(), request_head.size());
        put(first, id_size);
        put(call.data(), call.size());
        const auto members_at = static_cast<std::uint32_t>(d - line.data()) - 8;  // before "name":
        put(name.data(), name.size());
        put(args.data(), args.size());
        put(arguments_json.data(), arguments_json.size());
        put(tail.data(), tail.size());
        return members_at;
    }
    line.clear();
    line.reserve(96 + name.size() + arguments_json.size() + (modern ? meta.modern_members->size() + 16 : 0));
    line += request_head;
    append_uint(line, id);
    std::uint32_t members_at;
    if (modern) {
        line += R"(,"method":"tools/call","params":{)"sv;
        members_at = static_cast<std::uint32_t>(line.size());
        line += R"("_meta":{)";
        line += *meta.modern_members;
        if (meta.progress) {
            line += R"(,"progressToken":)";
            append_uint(line, id);
        }
        line += "},";
        line += R"("name":)"sv;
    } else {
        line += R"(,"method":"tools/call","params":{"name":)"sv;  // one append on the hot path
        members_at = static_cast<std::uint32_t>(line.size() - 7);  // before "name":
    }
    append_json_string(line, name);
    line += R"(,"arguments":)"sv;
    line += arguments_json;
    if (!modern && meta.progress) {
        line += R"(,"_meta":{"progressToken":)";
        append_uint(line, id);
        line += '}';
    }
    line += "}}\n"sv;
    return members_at;
}

MCP_LOADTEST_DECL bool rewrite_request_id(std::string& line, std::uint64_t old_id, std::uint64_t id) noexcept {
    char digits[20];
    const std::size_t size = write_uint_backwards(digits + sizeof digits, id);
    // old_id < id, so old_id has as many digits unless it is below 10^(size - 1).
    if (old_id >= id || (size > 1 && old_id < pow10_table[size - 1]) || line.size() <= request_head.size() + size ||
        line[request_head.size() + size] != ',')
        return false;
    // At most 20 bytes: in overlapping words, not a call to memcpy.
    char* const to = line.data() + request_head.size();
    const char* const from = digits + sizeof digits - size;
    const auto copy = [&]<class Word>(Word, std::size_t at) { std::memcpy(to + at, from + at, sizeof(Word)); };
    if (size >= 8) {
        copy(std::uint64_t{}, 0);
        copy(std::uint64_t{}, size - 8);
        if (size > 16) copy(std::uint64_t{}, 8);
    } else if (size >= 4) {
        copy(std::uint32_t{}, 0);
        copy(std::uint32_t{}, size - 4);
    } else {
        for (std::size_t i = 0; i < size; ++i) to[i] = from[i];
    }
    return true;
}

MCP_LOADTEST_DECL std::uint32_t write_request(std::string& line, std::uint64_t id, std::string_view method, const json& params,
                                               const json* modern_meta, bool progress) {
    std::uint32_t members_at = 0;
    begin_request(line, id, method);
    if (modern_meta) {
        json p = params.is_object() ? params : json::object();
        json meta = *modern_meta;
        if (auto own = p.find("_meta"); own != p.end() && own->is_object()) meta.update(*own);
        if (progress) meta["progressToken"] = id;
        p["_meta"] = std::move(meta);
        line += R"(,"params":)";
        members_at = static_cast<std::uint32_t>(line.size() + 1);
        line += p.dump();
    } else if (progress) {
        json p = params.is_object() ? params : json::object();
        p["_meta"]["progressToken"] = id;
        line += R"(,"params":)";
        line += p.dump();
    } else if (!params.is_null()) {
        line += R"(,"params":)";
        line += params.dump();
    }
    line += "}\n";
    return members_at;
}

MCP_LOADTEST_DECL std::uint32_t write_request_text(std::string& line, std::uint64_t id, std::string_view method,
                                                    std::string_view params_object, request_meta meta) {
    line.clear();
    begin_request(line, id, method);
    line += R"(,"params":)";
    if (!meta.modern_members && !meta.progress) {
        line += params_object;
        line += "}\n";
        return 0;
    }
    line += '{';
    const auto members_at = static_cast<std::uint32_t>(line.size());
    line += R"("_meta":{)";
    bool first = true;
    if (meta.modern_members && !meta.modern_members->empty()) {
        line += *meta.modern_members;
        first = false;
    }
    if (meta.progress) {
        if (!first) line += ',';
        line += R"("progressToken":)";
        append_uint(line, id);
    }
    line += '}';
    std::string_view rest = params_object.substr(std::min<std::size_t>(params_object.find('{') + 1, params_object.size()));
    const std::size_t content = rest.find_first_not_of(" \t\r\n");
    if (content != std::string_view::npos && rest[content] != '}') line += ',';
    line += rest;
    line += "}\n";
    return members_at;
}

MCP_LOADTEST_DECL void write_input_retry(std::string& line, std::uint64_t id, std::string_view method,
                                          const json& input_responses, const std::string* request_state,
                                          std::string_view retry_tail) {
    line.reserve(retry_tail.size() + 128);
    begin_request(line, id, method);
    line += R"(,"params":{)";
    if (!input_responses.empty()) {
        line += R"("inputResponses":)";
        line += input_responses.dump();
        line += ',';
    }
    if (request_state) {
        line += R"("requestState":)";
        append_json_string(line, *request_state);
        line += ',';
    }
    line += retry_tail;
}

MCP_LOADTEST_DECL std::string write_notification(std::string_view method, std::string_view params_json) {
    std::string line = R"({"jsonrpc":"2.0","method":)";
    append_json_string(line, method);
    if (!params_json.empty()) {
        line += R"(,"params":)";
        line += params_json;
    }
    line += "}\n";
    return line;
}

MCP_LOADTEST_DECL std::string cancelled_params(std::uint64_t request_id, std::string_view reason) {
    std::string params = R"({"requestId":)";
    append_uint(params, request_id);
    params += R"(,"reason":)";
    append_json_string(params, reason);
    params += '}';
    return params;
}

MCP_LOADTEST_DECL void begin_response(std::string& reply, std::string_view id_token) {
    reply += R"({"jsonrpc":"2.0","id":)";
    reply += id_token;
}

MCP_LOADTEST_DECL void end_result_response(std::string& reply, const json& result) {
    reply += R"(,"result":)";
    reply += result.dump();
    reply += "}\n";
}

MCP_LOADTEST_DECL void end_error_response(std::string& reply, std::int64_t code, std::string_view message) {
    reply += R"(,"error":{"code":)";
    reply += std::to_string(code);
    reply += R"(,"message":)";
    append_json_string(reply, message);
    reply += "}}\n";
}

}  // namespace mcp_loadtest::detail
