#ifndef LIVESTATE_CBITSETS_SHIM_H
#define LIVESTATE_CBITSETS_SHIM_H
// Sets of places 0..<count as 64-bit words (place p is bit p % 64 of word p / 64; the bits past count are 0),
// and the loops over every item of a large collection that a filter's answer takes. NB: in C, where the same
// loop in a debug build's Swift costs 10-30 ns per item (each array access a call), so a few of them over
// 100,000 items filled the 50 ms work budget.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
