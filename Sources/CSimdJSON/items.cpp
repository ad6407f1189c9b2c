// The objects of a JSON array read many at a time with simdjson's DOM parser (which checks the whole text:
// syntax, UTF-8, unescaped control characters), each written as StrictJSON's writer writes the same value.
// See CSimdJSON.h. An element is written here only when the text jansson would read gives exactly these
// bytes; anything else (a real below 0.001, an integer past int64, a duplicate key, a NUL in a key, a lone
// surrogate, deeper than asked) is marked unwritten and read with jansson by the caller.
#include "CSimdJSON.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <new>
#include <string_view>
#include <unordered_set>
#include <vector>

struct csimdjson_items {
    simdjson::dom::parser parser;
    /// `[`, the elements' bytes, `]` and simdjson's padding.
    std::vector<uint8_t> scratch;
    std::vector<uint8_t> output;
    std::vector<csimdjson_item> items;
    /// Per element: whether its text has a `\u` escape (its written strings are checked as UTF-8).
    std::vector<bool> escapes;
};

namespace {

bool is_space(uint8_t byte) { return byte == ' ' || byte == '\n' || byte == '\r' || byte == '\t'; }

enum class framing { whole, incomplete, other };

/// Finds the end of the object at `input[start]` (a `{`) by its brackets and strings alone: simdjson checks
/// the text afterwards. Sets `*end` just past its `}` and `*escape` when a string holds `\u`.
framing frame(const uint8_t *input, size_t length, size_t start, size_t max_depth, size_t *end, bool *escape) {
    size_t depth = 0;
    size_t index = start;
    while (index < length) {
        uint8_t byte = input[index];
        if (byte == '"') {
            index += 1;
            while (true) {
                if (index >= length) return framing::incomplete;
                uint8_t inner = input[index];
                if (inner == '\\') {
                    if (index + 1 < length && input[index + 1] == 'u') *escape = true;
                    index += 2;
                    continue;
                }
                index += 1;
                if (inner == '"') break;
            }
            continue;
        }
        if (byte == '{' || byte == '[') {
            depth += 1;
            // NB: the item itself is depth 1 here; one level past what is taken leaves it to jansson.
            if (depth > max_depth + 2) return framing::other;
        } else if (byte == '}' || byte == ']') {
            if (depth == 0) return framing::other;
            depth -= 1;
            if (depth == 0) {
                *end = index + 1;
                return framing::whole;
            }
        }
        index += 1;
    }
    return framing::incomplete;
}

/// Writes values as StrictJSON's `JSONValue.write(into:indent:depth:)` with no indent, summing what a 2-space
/// indent adds (`JSONValue.indentationSize(indent:depth:)`).
struct writer {
    std::vector<uint8_t> &out;
    size_t max_depth;
    size_t indentation = 0;

    void literal(std::string_view text) { out.insert(out.end(), text.begin(), text.end()); }

    /// A string in quotes, escaped as `JSON.stringify` escapes: quote, backslash and control characters.
    void string(std::string_view text) {
        static const char hex[] = "0123456789abcdef";
        out.push_back('"');
        size_t run = 0;
        for (size_t index = 0; index < text.size(); index++) {
            uint8_t byte = static_cast<uint8_t>(text[index]);
            if (byte >= 0x20 && byte != '"' && byte != '\\') continue;
            out.insert(out.end(), text.begin() + run, text.begin() + index);
            run = index + 1;
            switch (byte) {
            case '"': literal("\\\""); break;
            case '\\': literal("\\\\"); break;
            case 0x08: literal("\\b"); break;
            case 0x0C: literal("\\f"); break;
            case 0x0A: literal("\\n"); break;
            case 0x0D: literal("\\r"); break;
            case 0x09: literal("\\t"); break;
            default:
                literal("\\u00");
                out.push_back(hex[byte >> 4]);
                out.push_back(hex[byte & 0xF]);
            }
        }
        out.insert(out.end(), text.begin() + run, text.end());
        out.push_back('"');
    }

    /// A number written with a fraction or an exponent, as StrictJSON's `JSONValue.javaScriptText` writes it:
    /// an integral value as an integer (`1.0` is `1`, `1E5` is `100000`), another in the shortest digits that
    /// read back the same, in decimal notation. False for the values that notation leaves to others (below
    /// 0.001, where it may use an exponent, and integral ones past 9e18): jansson reads them.
    bool real(double number) {
        if (!std::isfinite(number)) return false;
        char digits[64];
        std::to_chars_result result;
        if (std::trunc(number) == number) {
            if (std::fabs(number) >= 9.0e18) return false;
            result = std::to_chars(digits, digits + sizeof digits, static_cast<int64_t>(number));
        } else {
            if (std::fabs(number) < 1e-3) return false;
            result = std::to_chars(digits, digits + sizeof digits, number, std::chars_format::fixed);
        }
        if (result.ec != std::errc()) return false;
        out.insert(out.end(), digits, result.ptr);
        return true;
    }

    /// Writes `element` at `level` (0: the item) and indent depth `depth`; false when it is not taken here.
    bool value(simdjson::dom::element element, size_t level, size_t depth) {
        if (level > max_depth) return false;
        switch (element.type()) {
        case simdjson::dom::element_type::OBJECT: {
            simdjson::dom::object object = element.get_object().value_unsafe();
            if (object.begin() == object.end()) {
                literal("{}");
                return true;
            }
            indentation += 1 + 2 * depth;
            out.push_back('{');
            // NB: the keys so far, compared one by one while there are few (most items), hashed past that.
            std::string_view small[16];
            size_t small_count = 0;
            std::unordered_set<std::string_view> large;
            bool first = true;
            for (simdjson::dom::key_value_pair member : object) {
                std::string_view key = member.key;
                // NB: jansson refuses a key holding NUL.
                if (key.find('\0') != std::string_view::npos) return false;
                if (large.empty() && small_count < 16) {
                    for (size_t seen = 0; seen < small_count; seen++) {
                        if (small[seen] == key) return false;
                    }
                    small[small_count++] = key;
                } else {
                    if (large.empty()) large.insert(small, small + small_count);
                    if (!large.insert(key).second) return false;
                }
                if (!first) out.push_back(',');
                first = false;
                indentation += 2 + 2 * (depth + 1);
                string(key);
                out.push_back(':');
                if (!value(member.value, level + 1, depth + 1)) return false;
            }
            out.push_back('}');
            return true;
        }
        case simdjson::dom::element_type::ARRAY: {
            simdjson::dom::array array = element.get_array().value_unsafe();
            if (array.begin() == array.end()) {
                literal("[]");
                return true;
            }
            indentation += 1 + 2 * depth;
            out.push_back('[');
            bool first = true;
            for (simdjson::dom::element child : array) {
                if (!first) out.push_back(',');
                first = false;
                indentation += 1 + 2 * (depth + 1);
                if (!value(child, level + 1, depth + 1)) return false;
            }
            out.push_back(']');
            return true;
        }
        case simdjson::dom::element_type::INT64: {
            char digits[24];
            auto result = std::to_chars(digits, digits + sizeof digits, element.get_int64().value_unsafe());
            out.insert(out.end(), digits, result.ptr);
            return true;
        }
        case simdjson::dom::element_type::STRING:
            string(element.get_string().value_unsafe());
            return true;
        case simdjson::dom::element_type::BOOL:
            literal(element.get_bool().value_unsafe() ? "true" : "false");
            return true;
        case simdjson::dom::element_type::NULL_VALUE:
            literal("null");
            return true;
        case simdjson::dom::element_type::DOUBLE:
            return real(element.get_double().value_unsafe());
        default:
            // NB: an integer past int64 is refused, and the message is jansson's.
            return false;
        }
    }
};

/// The id member of `object`, when written; its string goes to `out`.
void identify(simdjson::dom::object object, std::string_view field, std::vector<uint8_t> &out, csimdjson_item &item) {
    item.id_kind = CSIMDJSON_ID_NONE;
    for (simdjson::dom::key_value_pair member : object) {
        if (member.key != field) continue;
        switch (member.value.type()) {
        case simdjson::dom::element_type::NULL_VALUE: return;
        case simdjson::dom::element_type::INT64:
            item.id_kind = CSIMDJSON_ID_INTEGER;
            item.id_integer = member.value.get_int64().value_unsafe();
            return;
        case simdjson::dom::element_type::STRING: {
            std::string_view text = member.value.get_string().value_unsafe();
            if (text.empty()) {
                item.id_kind = CSIMDJSON_ID_OTHER;
                return;
            }
            item.id_kind = CSIMDJSON_ID_STRING;
            item.id_start = out.size();
            out.insert(out.end(), text.begin(), text.end());
            item.id_end = out.size();
            return;
        }
        default:
            item.id_kind = CSIMDJSON_ID_OTHER;
            return;
        }
    }
}

/// Writes the framed elements from the array simdjson read, or leaves them all unwritten when it refused.
void write(csimdjson_items &reader, size_t length, std::string_view field, size_t max_depth) {
    auto &items = reader.items;
    for (auto &item : items) item.written = 0;
    simdjson::dom::element root;
    if (reader.parser.parse(reader.scratch.data(), length, false).get(root) != simdjson::SUCCESS) return;
    simdjson::dom::array array;
    if (root.get_array().get(array) != simdjson::SUCCESS || array.size() != items.size()) return;
    size_t index = 0;
    for (simdjson::dom::element element : array) {
        csimdjson_item &item = items[index];
        simdjson::dom::object object;
        if (element.get_object().get(object) != simdjson::SUCCESS) return;
        size_t mark = reader.output.size();
        writer out{reader.output, max_depth};
        bool taken = out.value(element, 0, 2);
        // NB: simdjson writes an escaped lone surrogate as bytes that are not UTF-8; jansson refuses it.
        if (taken && reader.escapes[index]) {
            taken = simdjson::validate_utf8(
                reinterpret_cast<const char *>(reader.output.data() + mark), reader.output.size() - mark);
        }
        if (!taken) {
            reader.output.resize(mark);
            index += 1;
            continue;
        }
        item.written = 1;
        item.output_start = mark;
        item.output_end = reader.output.size();
        item.indentation = out.indentation;
        identify(object, field, reader.output, item);
        index += 1;
    }
}

long read(
    csimdjson_items &reader, const uint8_t *input, size_t length, size_t start, size_t max_bytes,
    std::string_view field, size_t max_depth, csimdjson_stop *stop) {
    reader.items.clear();
    reader.escapes.clear();
    reader.output.clear();
    size_t index = start;
    *stop = CSIMDJSON_STOP_INCOMPLETE;
    while (true) {
        while (index < length && is_space(input[index])) index += 1;
        if (index >= length) {
            *stop = CSIMDJSON_STOP_INCOMPLETE;
            break;
        }
        if (input[index] != '{') {
            *stop = CSIMDJSON_STOP_OTHER;
            break;
        }
        size_t end = 0;
        bool escape = false;
        framing found = frame(input, length, index, max_depth, &end, &escape);
        if (found != framing::whole) {
            *stop = found == framing::incomplete ? CSIMDJSON_STOP_INCOMPLETE : CSIMDJSON_STOP_OTHER;
            break;
        }
        size_t next = end;
        while (next < length && is_space(input[next])) next += 1;
        if (next >= length) {
            *stop = CSIMDJSON_STOP_INCOMPLETE;
            break;
        }
        if (input[next] != ',' && input[next] != ']') {
            *stop = CSIMDJSON_STOP_OTHER;
            break;
        }
        if (end - (reader.items.empty() ? index : reader.items.front().start) > max_bytes) {
            *stop = reader.items.empty() ? CSIMDJSON_STOP_OTHER : CSIMDJSON_STOP_LIMIT;
            break;
        }
        csimdjson_item item{};
        item.start = index;
        item.end = end;
        item.next = next;
        reader.items.push_back(item);
        reader.escapes.push_back(escape);
        if (input[next] == ']') {
            *stop = CSIMDJSON_STOP_END;
            break;
        }
        index = next + 1;
    }
    if (reader.items.empty()) return 0;
    size_t first = reader.items.front().start;
    size_t last = reader.items.back().end;
    size_t count = last - first + 2;
    reader.scratch.resize(count + simdjson::SIMDJSON_PADDING);
    reader.scratch[0] = '[';
    std::copy(input + first, input + last, reader.scratch.begin() + 1);
    reader.scratch[count - 1] = ']';
    std::fill(reader.scratch.begin() + count, reader.scratch.end(), 0);
    write(reader, count, field, max_depth);
    return static_cast<long>(reader.items.size());
}

} // namespace

extern "C" {

csimdjson_items *csimdjson_items_create(void) { return new (std::nothrow) csimdjson_items(); }

void csimdjson_items_destroy(csimdjson_items *items) { delete items; }

long csimdjson_items_read(
    csimdjson_items *items, const uint8_t *input, size_t length, size_t start, size_t max_bytes,
    const uint8_t *id_field, size_t id_field_length, size_t max_depth, csimdjson_stop *stop) {
    try {
        std::string_view field(reinterpret_cast<const char *>(id_field), id_field_length);
        return read(*items, input, length, start, max_bytes, field, max_depth, stop);
    } catch (const std::bad_alloc &) {
        items->items.clear();
        return -1;
    }
}

const csimdjson_item *csimdjson_items_item(const csimdjson_items *items, size_t index) {
    return &items->items[index];
}

const uint8_t *csimdjson_items_output(const csimdjson_items *items) { return items->output.data(); }

} // extern "C"
