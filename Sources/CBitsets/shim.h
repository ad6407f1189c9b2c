#ifndef LIVESTATE_CBITSETS_SHIM_H
#define LIVESTATE_CBITSETS_SHIM_H
// Sets of places 0..<count as 64-bit words (place p is bit p % 64 of word p / 64; the bits past count are 0),
// and the loops over every item of a large collection that a filter's answer takes. NB: in C, where the same
// loop in a debug build's Swift costs 10-30 ns per item (each array access a call), so a few of them over
// 100,000 items filled the 50 ms work budget.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// words |= the places whose value (values[place], negative: none) is marked (marked_count of them); returns false,
// at the first value past them, when one is.
static inline bool livestate_bits_gather(
    const int32_t *values, size_t count, const bool *marked, size_t marked_count, uint64_t *words)
{
    for (size_t place = 0; place < count; place++) {
        int32_t value = values[place];
        if (value < 0) continue;
        if ((size_t)value >= marked_count) return false;
        if (marked[value]) words[place >> 6] |= (uint64_t)1 << (place & 63);
    }
    return true;
}

// words |= the places whose flag is set.
static inline void livestate_bits_from_flags(const bool *flags, size_t count, uint64_t *words)
{
    for (size_t place = 0; place < count; place++) {
        if (flags[place]) words[place >> 6] |= (uint64_t)1 << (place & 63);
    }
}

// flags[place] = whether place is in words.
static inline void livestate_bits_to_flags(const uint64_t *words, size_t count, bool *flags)
{
    for (size_t place = 0; place < count; place++) flags[place] = (words[place >> 6] >> (place & 63)) & 1;
}

// words |= each of places; returns false, at the first place outside 0..<size, when one is.
static inline bool livestate_bits_insert(const ptrdiff_t *places, size_t count, size_t size, uint64_t *words)
{
    for (size_t index = 0; index < count; index++) {
        if (places[index] < 0 || (size_t)places[index] >= size) return false;
        size_t place = (size_t)places[index];
        words[place >> 6] |= (uint64_t)1 << (place & 63);
    }
    return true;
}

// target = target & other (intersect), target | other (!intersect).
static inline void livestate_bits_combine(uint64_t *target, const uint64_t *other, size_t words, bool intersect)
{
    if (intersect) {
        for (size_t word = 0; word < words; word++) target[word] &= other[word];
    } else {
        for (size_t word = 0; word < words; word++) target[word] |= other[word];
    }
}

// The places in words, ascending, written to places; returns how many.
static inline size_t livestate_bits_places(const uint64_t *words, size_t count, ptrdiff_t *places)
{
    size_t found = 0;
    for (size_t word = 0; word * 64 < count; word++) {
        uint64_t bits = words[word];
        while (bits) {
            places[found++] = (ptrdiff_t)(word * 64 + (size_t)__builtin_ctzll(bits));
            bits &= bits - 1;
        }
    }
    return found;
}

// The places of order (count of them) that are in words (of places 0..<size), in order's order, written to
// places (room for found_room); returns how many, or -1 at a place outside 0..<size or past the room.
static inline ptrdiff_t livestate_bits_select(
    const uint64_t *words, size_t size, const ptrdiff_t *order, size_t count, ptrdiff_t *places, size_t room)
{
    size_t found = 0;
    for (size_t index = 0; index < count; index++) {
        if (order[index] < 0 || (size_t)order[index] >= size) return -1;
        size_t place = (size_t)order[index];
        if ((words[place >> 6] >> (place & 63)) & 1) {
            if (found == room) return -1;
            places[found++] = (ptrdiff_t)place;
        }
    }
    return (ptrdiff_t)found;
}

// How many places are in words.
static inline size_t livestate_bits_count(const uint64_t *words, size_t words_count)
{
    size_t total = 0;
    for (size_t word = 0; word < words_count; word++) total += (size_t)__builtin_popcountll(words[word]);
    return total;
}

// marked[place] = whether numbers[place] orders against number as asked (less, equal, greater), as JavaScript's
// relational operators order numbers (NaN passes none), and, when only is not NULL, only[place] is set.
static inline void livestate_mark_numbers(
    const double *numbers, const bool *only, size_t count, double number, bool less, bool equal, bool greater,
    bool *marked)
{
    for (size_t place = 0; place < count; place++) {
        double value = numbers[place];
        bool passes = (less && value < number) || (equal && value == number) || (greater && value > number);
        marked[place] = passes && (only == NULL || only[place]);
    }
}

// target[place] = target[place] && other[place] (intersect), or || (!intersect).
static inline void livestate_flags_combine(bool *target, const bool *other, size_t count, bool intersect)
{
    if (intersect) {
        for (size_t place = 0; place < count; place++) target[place] = target[place] && other[place];
    } else {
        for (size_t place = 0; place < count; place++) target[place] = target[place] || other[place];
    }
}

// flags[place] = !flags[place] for each place.
static inline void livestate_flags_invert(bool *flags, size_t count)
{
    for (size_t place = 0; place < count; place++) flags[place] = !flags[place];
}

// The text of each segment lowercased (segment s: text[starts[s]..<starts[s + 1]], valid UTF-8): ASCII by its own
// rule, a scalar c below 0x20000 becomes table[c], and one above is kept; a segment holding a scalar whose entry
// is 0 (its lowercase is not one scalar, or depends on the text around it) is copied as it is and flagged in
// unmapped[s]. Written to out (room for 2 * starts[count] bytes: a scalar's lowercase is at most 1.5 times its
// bytes), segment s from out_starts[s]; returns the bytes written.
static inline size_t livestate_text_lower(
    const uint8_t *text, const ptrdiff_t *starts, size_t count, const uint32_t *table, uint8_t *out,
    ptrdiff_t *out_starts, bool *unmapped)
{
    size_t written = 0;
    for (size_t segment = 0; segment < count; segment++) {
        size_t start = (size_t)starts[segment], end = (size_t)starts[segment + 1], at = start;
        out_starts[segment] = (ptrdiff_t)written;
        bool mapped = true;
        while (at < end) {
            uint8_t byte = text[at];
            if (byte < 0x80) {
                out[written++] = byte >= 'A' && byte <= 'Z' ? byte + 32 : byte;
                at++;
                continue;
            }
            size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2;
            if (byte < 0xC2 || at + length > end) {
                mapped = false;
                break;
            }
            uint32_t scalar = length == 2 ? byte & 0x1F : length == 3 ? byte & 0x0F : byte & 0x07;
            for (size_t next = 1; next < length; next++) scalar = scalar << 6 | (text[at + next] & 0x3F);
            uint32_t lower = scalar < 0x20000 ? table[scalar] : scalar;
            if (lower == 0) {
                mapped = false;
                break;
            }
            if (lower < 0x80) {
                out[written++] = (uint8_t)lower;
            } else if (lower < 0x800) {
                out[written++] = (uint8_t)(0xC0 | lower >> 6);
                out[written++] = (uint8_t)(0x80 | (lower & 0x3F));
            } else if (lower < 0x10000) {
                out[written++] = (uint8_t)(0xE0 | lower >> 12);
                out[written++] = (uint8_t)(0x80 | (lower >> 6 & 0x3F));
                out[written++] = (uint8_t)(0x80 | (lower & 0x3F));
            } else {
                out[written++] = (uint8_t)(0xF0 | lower >> 18);
                out[written++] = (uint8_t)(0x80 | (lower >> 12 & 0x3F));
                out[written++] = (uint8_t)(0x80 | (lower >> 6 & 0x3F));
                out[written++] = (uint8_t)(0x80 | (lower & 0x3F));
            }
            at += length;
        }
        unmapped[segment] = !mapped;
        if (!mapped) {
            written = (size_t)out_starts[segment];
            for (size_t copy = start; copy < end; copy++) out[written++] = text[copy];
        }
    }
    out_starts[count] = (ptrdiff_t)written;
    return written;
}

// Where needle (needle_length > 0 bytes) first occurs in text[from..<to], or -1.
static inline ptrdiff_t livestate_text_find(
    const uint8_t *text, size_t from, size_t to, const uint8_t *needle, size_t needle_length)
{
    uint8_t first = needle[0];
    while (from + needle_length <= to) {
        const uint8_t *hit = memchr(text + from, first, to - from - needle_length + 1);
        if (hit == NULL) return -1;
        size_t at = (size_t)(hit - text);
        if (memcmp(text + at, needle, needle_length) == 0) return (ptrdiff_t)at;
        from = at + 1;
    }
    return -1;
}

// The segments (as above) in which needle (needle_length > 0 bytes) starts, ascending, written to found (room for
// count); returns how many.
static inline size_t livestate_text_segments_holding(
    const uint8_t *text, const ptrdiff_t *starts, size_t count, const uint8_t *needle, size_t needle_length,
    ptrdiff_t *found)
{
    size_t holding = 0, segment = 0, end = (size_t)starts[count], from = (size_t)starts[0];
    while (segment < count) {
        ptrdiff_t at = livestate_text_find(text, from, end, needle, needle_length);
        if (at < 0) break;
        while ((size_t)starts[segment + 1] <= (size_t)at) segment++;
        found[holding++] = (ptrdiff_t)segment;
        segment++;
        from = (size_t)starts[segment];
    }
    return holding;
}

// Values cut into segments as for livestate_text_lower, each segment ending with one separator byte that is not part
// of its value (value s: text[starts[s]..<starts[s + 1] - 1]). For each value that equals needle (mode 0), holds it
// (1), starts with it (2) or ends with it (3), byte for byte (so code unit for code unit, as JavaScript compares
// strings: no canonical equivalence), marked[s] is set; the others are left as they are. An empty needle is held by,
// starts and ends every value.
static inline void livestate_text_mark_values(
    const uint8_t *text, const ptrdiff_t *starts, size_t count, const uint8_t *needle, size_t needle_length, int mode,
    bool *marked)
{
    if (mode == 1 && needle_length > 0) {
        // NB: one scan of the whole text; a match that runs past its value's end leaves that value, since any later
        // one in it runs past too.
        size_t segment = 0, end = (size_t)starts[count], from = count > 0 ? (size_t)starts[0] : end;
        while (segment < count) {
            ptrdiff_t at = livestate_text_find(text, from, end, needle, needle_length);
            if (at < 0) break;
            while ((size_t)starts[segment + 1] <= (size_t)at) segment++;
            if ((size_t)at + needle_length <= (size_t)starts[segment + 1] - 1) marked[segment] = true;
            segment++;
            if (segment < count) from = (size_t)starts[segment];
        }
        return;
    }
    for (size_t segment = 0; segment < count; segment++) {
        size_t start = (size_t)starts[segment], length = (size_t)starts[segment + 1] - 1 - start;
        bool passes;
        // NB: no memcmp of an empty needle, which may be a null pointer.
        switch (mode) {
        case 0:
            passes = length == needle_length && (length == 0 || memcmp(text + start, needle, needle_length) == 0);
            break;
        case 1: passes = true; break;
        case 2:
            passes = needle_length == 0
                || (length >= needle_length && memcmp(text + start, needle, needle_length) == 0);
            break;
        default:
            passes = needle_length == 0
                || (length >= needle_length
                    && memcmp(text + start + length - needle_length, needle, needle_length) == 0);
        }
        if (passes) marked[segment] = true;
    }
}

// How the UTF-8 text a orders against b by their UTF-16 code units, as JavaScript's < orders strings: -1, 0 or 1.
// NB: UTF-8's byte order is the order of the scalars, which UTF-16's is too but for a scalar past U+FFFF (a pair of
// surrogates, 0xD800 up) against one of U+E000...U+FFFF (lead byte 0xEE or 0xEF): there UTF-16 puts the first
// before. Where two texts first differ they are at the same place in a scalar, so a lead byte meets a lead byte.
static inline int livestate_text_order(const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length)
{
    size_t common = a_length < b_length ? a_length : b_length;
    for (size_t at = 0; at < common; at++) {
        uint8_t x = a[at], y = b[at];
        if (x == y) continue;
        if (x >= 0xF0 && (y == 0xEE || y == 0xEF)) return -1;
        if (y >= 0xF0 && (x == 0xEE || x == 0xEF)) return 1;
        return x < y ? -1 : 1;
    }
    return a_length == b_length ? 0 : (a_length < b_length ? -1 : 1);
}

// marked[s] = whether value s (segments as for livestate_text_mark_values) orders against operand as asked (less,
// equal, greater), by livestate_text_order.
static inline void livestate_text_mark_order(
    const uint8_t *text, const ptrdiff_t *starts, size_t count, const uint8_t *operand, size_t operand_length,
    bool less, bool equal, bool greater, bool *marked)
{
    for (size_t segment = 0; segment < count; segment++) {
        size_t start = (size_t)starts[segment], length = (size_t)starts[segment + 1] - 1 - start;
        int order = livestate_text_order(text + start, length, operand, operand_length);
        marked[segment] = order < 0 ? less : (order == 0 ? equal : greater);
    }
}

#endif
