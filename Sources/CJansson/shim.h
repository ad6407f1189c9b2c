#ifndef LIVESTATE_CJANSSON_SHIM_H
#define LIVESTATE_CJANSSON_SHIM_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

// json_decref is a static inline function around a macro on the reference count; Swift imports it,
// but json_typeof is a macro reading the struct, so it gets a function here.
static inline json_type CJansson_typeof(const json_t *json) {
    return json_typeof(json);
}

// The string values of the objects of `json`, a JSON array of objects as StrictJSON's writer writes it
// (compact, valid UTF-8): for each object, each string value at any depth (keys left out), in order, after a
// NUL, unescaped, then a line feed. `text` takes at most `length` bytes; `starts[i]` is where object i's
// strings start (and `starts[count]` the end), `others[i]` 1 when one of them holds a byte that is not
// printable ASCII. Returns how many objects were read, or -1 when the input is not such an array of at most
// `capacity` objects.
// NB: in C, where reading each item's members in Swift took about 1 s for 100,000 items in a debug build.
static inline ptrdiff_t livestate_string_values(
    const uint8_t *json, size_t length, uint8_t *text, size_t *starts, uint8_t *others, size_t capacity)
{
    size_t at = 0, out = 0, count = 0;
    if (length < 2 || json[0] != '[') return -1;
    at = 1;
    if (json[at] == ']') { starts[0] = 0; return at + 1 == length ? 0 : -1; }
    // Per nesting level: whether it is an object, and whether the next string in it is a key.
    unsigned char objects[512], keys[512];
    int depth = 0;
    while (at < length) {
        if (depth == 0) {
            if (json[at] != '{' || count >= capacity) return -1;
            starts[count] = out;
            others[count] = 0;
        }
        uint8_t byte = json[at];
        if (byte == '{' || byte == '[') {
            if (depth >= 512) return -1;
            objects[depth] = byte == '{';
            keys[depth] = byte == '{';
            depth += 1;
            at += 1;
        } else if (byte == '}' || byte == ']') {
            if (depth == 0) return -1;
            depth -= 1;
            at += 1;
            if (depth == 0) {
                text[out++] = '\n';
                count += 1;
                if (at < length && json[at] == ']') {
                    starts[count] = out;
                    return at + 1 == length ? (ptrdiff_t)count : -1;
                }
                if (at >= length || json[at] != ',') return -1;
                at += 1;
            }
        } else if (byte == ',') {
            if (depth > 0 && objects[depth - 1]) keys[depth - 1] = 1;
            at += 1;
        } else if (byte == ':') {
            keys[depth - 1] = 0;
            at += 1;
        } else if (byte == '"') {
            int key = depth > 0 && objects[depth - 1] && keys[depth - 1];
            at += 1;
            if (!key) text[out++] = 0;
            while (at < length && json[at] != '"') {
                uint8_t c = json[at];
                if (c != '\\') {
                    if (!key) {
                        if (c < 0x20 || c >= 0x7F) others[count] = 1;
                        text[out++] = c;
                    }
                    at += 1;
                    continue;
                }
                if (at + 1 >= length) return -1;
                uint8_t escape = json[at + 1];
                uint32_t code = 0;
                at += 2;
                switch (escape) {
                case 'b': code = 8; break;
                case 'f': code = 12; break;
                case 'n': code = 10; break;
                case 'r': code = 13; break;
                case 't': code = 9; break;
                case 'u': {
                    if (at + 4 > length) return -1;
                    for (int i = 0; i < 4; i++) {
                        uint8_t h = json[at + i];
                        code = code * 16 + (h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                    }
                    at += 4;
                    if (code >= 0xD800 && code < 0xDC00 && at + 6 <= length && json[at] == '\\' && json[at + 1] == 'u') {
                        uint32_t low = 0;
                        for (int i = 0; i < 4; i++) {
                            uint8_t h = json[at + 2 + i];
                            low = low * 16 + (h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                        }
                        if (low >= 0xDC00 && low < 0xE000) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                            at += 6;
                        }
                    }
                    if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;
                    break;
                }
                default: code = escape; break;
                }
                if (key) continue;
                if (code < 0x20 || code >= 0x7F) others[count] = 1;
                if (code < 0x80) {
                    text[out++] = (uint8_t)code;
                } else if (code < 0x800) {
                    text[out++] = (uint8_t)(0xC0 | (code >> 6));
                    text[out++] = (uint8_t)(0x80 | (code & 0x3F));
                } else if (code < 0x10000) {
                    text[out++] = (uint8_t)(0xE0 | (code >> 12));
                    text[out++] = (uint8_t)(0x80 | ((code >> 6) & 0x3F));
                    text[out++] = (uint8_t)(0x80 | (code & 0x3F));
                } else {
                    text[out++] = (uint8_t)(0xF0 | (code >> 18));
                    text[out++] = (uint8_t)(0x80 | ((code >> 12) & 0x3F));
                    text[out++] = (uint8_t)(0x80 | ((code >> 6) & 0x3F));
                    text[out++] = (uint8_t)(0x80 | (code & 0x3F));
                }
            }
            if (at >= length) return -1;
            at += 1;
        } else {
            // A number, true, false or null: skipped.
            at += 1;
        }
    }
    return -1;
}

#endif
