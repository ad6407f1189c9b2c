#ifndef LIVESTATE_CBITSETS_SORT_H
#define LIVESTATE_CBITSETS_SORT_H
// Sorting a large collection's places by their sort keys, read once into flat arrays: a sort index's first
// order of 100,000 items. NB: in C, where the same sort in a debug build's Swift (1.7 million comparisons, each
// a closure over enum values) took about 2 s of CPU.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

// The keys of `count` places, `width` per place (place p's key k at p * width + k): its kind (0 number, 1 text,
// 2 boolean, 3 other, 4 missing; kinds sort in that order), its number (a boolean's 0 or 1), and for a text its
// bytes text[offsets[i] ..< offsets[i] + lengths[i]].
typedef struct {
    const uint8_t *kinds;
    const double *numbers;
    const ptrdiff_t *offsets;
    const ptrdiff_t *lengths;
    const uint8_t *text;
    const bool *descending;
    size_t width;
} livestate_sort_keys;

// -1, 0 or 1: place a's keys against place b's, each descending key reversed; ties by place.
static inline int livestate_sort_compare(const livestate_sort_keys *keys, ptrdiff_t a, ptrdiff_t b)
{
    for (size_t k = 0; k < keys->width; k++) {
        size_t i = (size_t)a * keys->width + k, j = (size_t)b * keys->width + k;
        int order = 0;
        uint8_t kind = keys->kinds[i], other = keys->kinds[j];
        if (kind != other) {
            order = kind < other ? -1 : 1;
        } else if (kind == 0 || kind == 2) {
            double x = keys->numbers[i], y = keys->numbers[j];
            order = x == y ? 0 : (x < y ? -1 : 1);
        } else if (kind == 1) {
            // NB: by UTF-16 code units, as JavaScript's `<` orders strings and the range filters search the order.
            order = livestate_text_order(keys->text + keys->offsets[i], (size_t)keys->lengths[i],
                                         keys->text + keys->offsets[j], (size_t)keys->lengths[j]);
        }
        if (order != 0) return keys->descending[k] ? -order : order;
    }
    return a == b ? 0 : (a < b ? -1 : 1);
}

// Sorts places[0 ..< count] (each below the keys' count) by their keys, a merge sort through a buffer of count
// places; false when the buffer cannot be had (places unchanged).
static inline bool livestate_sort_places(const livestate_sort_keys *keys, ptrdiff_t *places, size_t count)
{
    if (count < 2) return true;
    ptrdiff_t *buffer = malloc(count * sizeof(ptrdiff_t));
    if (buffer == NULL) return false;
    ptrdiff_t *from = places, *to = buffer;
    for (size_t run = 1; run < count; run *= 2) {
        for (size_t start = 0; start < count; start += 2 * run) {
            size_t middle = start + run < count ? start + run : count;
            size_t end = start + 2 * run < count ? start + 2 * run : count;
            size_t left = start, right = middle, out = start;
            while (left < middle && right < end) {
                to[out++] = livestate_sort_compare(keys, from[right], from[left]) < 0 ? from[right++] : from[left++];
            }
            while (left < middle) to[out++] = from[left++];
            while (right < end) to[out++] = from[right++];
        }
        ptrdiff_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != places) memcpy(places, from, count * sizeof(ptrdiff_t));
    free(buffer);
    return true;
}

#endif
