// Definitions of strict.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/strict.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL mcp_schema mcp_schema::load(const std::filesystem::path& file, std::string revision) {
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error("cannot read the MCP schema " + file.string() +
                                 ". The official schemas are in the public repository "
                                 "modelcontextprotocol/modelcontextprotocol, at schema/<revision>/schema.json.");
    json doc;
    try {
        doc = json::parse(in);
    } catch (const std::exception& e) {
        throw std::runtime_error("the MCP schema " + file.string() + " is not JSON: " + e.what());
    }
    if (revision.empty()) {
        const std::string stem = file.filename().string();
        revision = stem.size() > 12 && stem.substr(stem.size() - 12) == ".schema.json"
                       ? stem.substr(0, stem.size() - 12)
                       : file.parent_path().filename().string();
    }
    return from_json(std::move(doc), std::move(revision));
}

MCP_LOADTEST_DECL mcp_schema mcp_schema::from_json(json doc, std::string revision) {
    const char* defs = doc.contains("$defs") ? "$defs" : "definitions";
    if (!doc.contains(defs) || !doc[defs].is_object())
        throw std::runtime_error("not an MCP schema (no definitions): revision " + revision);
    mcp_schema s;
    s.state_ = std::make_shared<state>();
    s.state_->revision = std::move(revision);
    s.state_->ref_prefix = std::string("#/") + defs + "/";
    // method -> definition, from each definition's "method": {"const": ...}.
    for (const auto& [name, d] : doc[defs].items()) {
        const json* m = d.is_object() && d.contains("properties") && d["properties"].contains("method")
                            ? &d["properties"]["method"]
                            : nullptr;
        if (!m || !m->is_object() || !m->contains("const") || !(*m)["const"].is_string()) continue;
        const std::string method = (*m)["const"];
        const bool request = name.size() > 7 && name.substr(name.size() - 7) == "Request";
        (request ? s.state_->requests : s.state_->notifications)[method] = name;
    }
    s.state_->document = std::move(doc);
    return s;
}

MCP_LOADTEST_DECL const json_schema* mcp_schema::result_schema(std::string_view method) const {
    auto it = state_->requests.find(std::string(method));
    if (it == state_->requests.end()) return nullptr;
    std::string result = it->second.substr(0, it->second.size() - 7) + "Result";
    if (!has_definition(result)) result = "EmptyResult";
    return definition(result);
}

MCP_LOADTEST_DECL const json_schema* mcp_schema::incoming_schema(const json& message) const {
    if (!message.is_object()) return nullptr;
    if (auto m = message.find("method"); m != message.end() && m->is_string()) {
        const auto& table = message.contains("id") ? state_->requests : state_->notifications;
        auto it = table.find(m->get<std::string>());
        return it == table.end() ? nullptr : definition(it->second);
    }
    if (message.contains("error"))
        return definition(has_definition("JSONRPCErrorResponse") ? "JSONRPCErrorResponse" : "JSONRPCError");
    return nullptr;
}

MCP_LOADTEST_DECL bool mcp_schema::has_definition(const std::string& name) const {
    const char* defs = state_->document.contains("$defs") ? "$defs" : "definitions";
    return state_->document[defs].contains(name);
}

MCP_LOADTEST_DECL const json_schema* mcp_schema::definition(const std::string& name) const {
    std::lock_guard lock(state_->mutex);
    auto& slot = state_->compiled[name];
    if (!slot) slot = std::make_unique<json_schema>(json_schema::compile(state_->document, state_->ref_prefix + name));
    return slot.get();
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void check_content_items(const json& result, std::string_view tool, std::vector<schema_violation>& out) {
    const auto add = [&](std::string pointer, std::string rule, const json& value, std::string message) {
        std::string v = value.dump(-1, ' ', false, json::error_handler_t::replace);
        if (v.size() > 200) v = v.substr(0, 197) + "...";
        out.push_back({"result", std::string(tool), "tools/call", std::move(pointer), std::move(rule), std::move(v),
                       std::move(message)});
    };
    auto content = result.find("content");
    if (content == result.end()) {
        add("/content", "required", result, "a CallToolResult must have a content array");
        return;
    }
    if (!content->is_array()) {
        add("/content", "type", *content, "content must be an array of content items");
        return;
    }
    static const std::map<std::string, std::vector<const char*>> required{
        {"text", {"text"}},          {"image", {"data", "mimeType"}}, {"audio", {"data", "mimeType"}},
        {"resource_link", {"uri", "name"}}, {"resource", {"resource"}}};
    for (std::size_t i = 0; i < content->size(); ++i) {
        const json& item = (*content)[i];
        const std::string at = "/content/" + std::to_string(i);
        if (!item.is_object() || !item.contains("type") || !item["type"].is_string()) {
            add(at, "required", item, "a content item is an object with a string \"type\"");
            continue;
        }
        auto known = required.find(item["type"].get<std::string>());
        if (known == required.end()) {
            add(at + "/type", "enum", item["type"], "not a content type of the spec (text, image, audio, resource_link, resource)");
            continue;
        }
        for (const char* member : known->second)
            if (!item.contains(member))
                add(at + "/" + member, "required", item, "a " + known->first + " content item needs \"" + member + "\"");
    }
}

MCP_LOADTEST_DECL std::optional<json_schema> compile_tool_schema(const json& schema, const char* where, const std::string& tool,
                                                      std::vector<schema_violation>& out) {
    std::string v = schema.dump(-1, ' ', false, json::error_handler_t::replace);
    if (v.size() > 200) v = v.substr(0, 197) + "...";
    // One finding per broken schema, whatever else its one cause breaks.
    std::optional<schema_violation> wrong_root;
    if (!schema.is_object() || schema.value("type", json()) != "object") {
        wrong_root = schema_violation{where, tool, "tools/list", "/type", "type", v,
                                      std::string("a tool's ") + where +
                                          " must be a JSON Schema with \"type\": \"object\" at its root"};
        if (!schema.is_object()) {
            out.push_back(std::move(*wrong_root));
            return std::nullopt;
        }
    }
    try {
        auto compiled = json_schema::compile(schema);
        if (wrong_root) out.push_back(std::move(*wrong_root));
        return compiled;
    } catch (const invalid_schema& e) {
        if (!wrong_root) {
            out.push_back({where, tool, "tools/list", "", "schema", v, e.what()});
        } else {
            wrong_root->message += std::string(", and this one is ") + e.what();  // "not a usable JSON Schema: ..."
            out.push_back(std::move(*wrong_root));
        }
        return std::nullopt;
    }
}

// A violation of the MCP schema inside a tool's inputSchema or outputSchema that
// compile_tool_schema() reported already: added to that finding's message instead.
MCP_LOADTEST_DECL bool fold_into_tool_schema_finding(const json& list_result, const schema_violation& v,
                                                     std::vector<schema_violation>& out) {
    // "/tools/<i>/inputSchema..." or "/tools/<i>/outputSchema..."
    constexpr std::string_view prefix = "/tools/";
    if (!v.pointer.starts_with(prefix)) return false;
    const std::size_t slash = v.pointer.find('/', prefix.size());
    if (slash == std::string::npos) return false;
    const std::string index = v.pointer.substr(prefix.size(), slash - prefix.size());
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9) return false;
    const std::string rest = v.pointer.substr(slash + 1);
    const char* kind = rest.starts_with("inputSchema") ? "inputSchema" : rest.starts_with("outputSchema") ? "outputSchema" : nullptr;
    const auto tools = list_result.find("tools");
    const std::size_t i = std::stoul(index);
    if (!kind || tools == list_result.end() || !tools->is_array() || i >= tools->size()) return false;
    const json& name = (*tools)[i].is_object() ? (*tools)[i].value("name", json()) : json();
    if (!name.is_string()) return false;
    for (auto& found : out)
        if (found.where == kind && found.tool == name.get<std::string>() && found.method == "tools/list") {
            if (found.message.ends_with('.')) found.message.pop_back();
            found.message += "; the MCP schema agrees: at " + v.pointer + " it breaks \"" + v.rule + "\"";
            return true;
        }
    return false;
}

MCP_LOADTEST_DECL void strict_validator::set_protocol_version(std::string_view version) {
    current_ = nullptr;
    for (const auto& s : *schemas_)
        if (s.revision() == version) current_ = &s;
}

MCP_LOADTEST_DECL void strict_validator::learn_tools(const json& list_result, std::vector<schema_violation>& out) {
    auto tools = list_result.find("tools");
    if (tools == list_result.end() || !tools->is_array()) return;
    for (const auto& t : *tools) {
        if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
        const std::string name = t["name"];
        tool_contract c;
        if (auto in = t.find("inputSchema"); in != t.end()) c.input = compile_tool_schema(*in, "inputSchema", name, out);
        if (auto o = t.find("outputSchema"); o != t.end()) {
            c.declares_output = true;
            c.output = compile_tool_schema(*o, "outputSchema", name, out);
        }
        tools_[name] = std::move(c);
    }
}

MCP_LOADTEST_DECL void strict_validator::check_arguments(std::string_view tool, const json& arguments, std::vector<schema_violation>& out) {
    if (!options_.check_arguments) return;
    auto it = tools_.find(std::string(tool));
    if (it == tools_.end() || !it->second.input) return;
    it->second.input->validate(arguments, {"arguments", tool, "tools/call", ""}, out);
}

MCP_LOADTEST_DECL void strict_validator::check_result(std::string_view method, std::string_view tool, const json& result,
                  std::vector<schema_violation>& out) {
    if (options_.check_messages && current_)
        if (const auto* s = current_->result_schema(method)) {
            std::vector<schema_violation> found;
            s->validate(result, {"result", tool, method, ""}, found);
            for (auto& v : found)
                if (method != "tools/list" || !fold_into_tool_schema_finding(result, v, out)) out.push_back(std::move(v));
        }
    if (!options_.check_results || method != "tools/call") return;
    if (!current_) check_content_items(result, tool, out);
    auto it = tools_.find(std::string(tool));
    if (it == tools_.end() || !it->second.declares_output || result.value("isError", false)) return;
    auto structured = result.find("structuredContent");
    if (structured == result.end()) {
        out.push_back({"structuredContent", std::string(tool), "tools/call", "/structuredContent", "required", {},
                       "the tool declares an outputSchema, so its results must carry structuredContent "
                       "(spec: \"Servers MUST provide structured results that conform to this schema\")"});
        return;
    }
    if (it->second.output)
        it->second.output->validate(*structured, {"structuredContent", tool, "tools/call", "/structuredContent"}, out);
}

MCP_LOADTEST_DECL void strict_validator::check_incoming(const json& message, std::vector<schema_violation>& out) {
    if (!options_.check_messages || !current_) return;
    if (const auto* s = current_->incoming_schema(message)) {
        const std::string method = message.is_object() ? message.value("method", "") : "";
        s->validate(message, {"message", "", method, ""}, out);
    }
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL strict_validation strict_mode(const strict_options& options) {
    auto schemas = std::make_shared<std::vector<mcp_schema>>();
    for (const auto& p : options.mcp_schemas) {
        if (std::filesystem::is_directory(p)) {
            for (const auto& f : std::filesystem::directory_iterator(p))
                if (f.path().filename().string().ends_with(".schema.json")) schemas->push_back(mcp_schema::load(f.path()));
        } else {
            schemas->push_back(mcp_schema::load(p));
        }
    }
    std::shared_ptr<const std::vector<mcp_schema>> shared = std::move(schemas);
    strict_validation v;
    v.make_validator = [options, shared]() -> std::unique_ptr<detail::message_validator> {
        return std::make_unique<detail::strict_validator>(options, shared);
    };
    return v;
}

}  // namespace mcp_loadtest
