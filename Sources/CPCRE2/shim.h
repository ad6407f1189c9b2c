#ifndef LIVESTATE_CPCRE2_SHIM_H
#define LIVESTATE_CPCRE2_SHIM_H
// The 8-bit library: patterns and subjects are UTF-8, as Swift strings are. pcre2.h refuses to be
// included without a code unit width; its generic names (pcre2_compile) are macros Swift does not
// import, so the Swift side calls the `_8` functions.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

// Searches `subject` (valid UTF-8) for `code` segment by segment, one pcre2_match per match: segment s is
// subject[starts[s] ..< starts[s + 1] - 1], the byte at starts[s + 1] - 1 ends it (and belongs to it), and the
// search ends at starts[last]. After a match in segment s (the last whose start is not past the match's), the
// search goes on at segment s + 1. Each segment with a match is appended to `found` (*found_count of them),
// and also to `past` (*past_count) when the match runs past its end; both hold last - first at most. Returns 0
// when the search is done, or pcre2_match's error, with *stopped the segment it searched from.
// NB: a loop of matches in C, where the same loop in Swift cost more per match than the match itself in a
// debug build (about 0.5 us, so 100,000 matches filled the 50 ms budget).
static inline int livestate_find_segments(
    const pcre2_code_8 *code, pcre2_match_data_8 *data, pcre2_match_context_8 *context, const uint8_t *subject,
    const ptrdiff_t *starts, size_t first, size_t last, ptrdiff_t *found, size_t *found_count, ptrdiff_t *past,
    size_t *past_count, size_t *stopped)
{
    size_t length = (size_t)starts[last];
    size_t segment = first;
    *found_count = 0;
    *past_count = 0;
    while (segment < last) {
        int result = pcre2_match_8(
            code, subject, length, (size_t)starts[segment], PCRE2_NO_UTF_CHECK, data, context);
        if (result == PCRE2_ERROR_NOMATCH || result == PCRE2_ERROR_PARTIAL) return 0;
        if (result < 0) {
            *stopped = segment;
            return result;
        }
        PCRE2_SIZE *vector = pcre2_get_ovector_pointer_8(data);
        // `\K` in a lookahead can set a start past the end: such a match is taken as empty at its end.
        size_t start = vector[0] < vector[1] ? vector[0] : vector[1];
        size_t end = vector[1];
        if (start >= length) return 0;
        size_t low = segment, high = last - 1;
        while (low < high) {
            size_t middle = (low + high + 1) / 2;
            if ((size_t)starts[middle] <= start) low = middle; else high = middle - 1;
        }
        found[(*found_count)++] = (ptrdiff_t)low;
        if (end > (size_t)starts[low + 1] - 1) past[(*past_count)++] = (ptrdiff_t)low;
        segment = low + 1;
    }
    return 0;
}

#endif
