#ifndef LIVESTATE_CSIMDJSON_H
#define LIVESTATE_CSIMDJSON_H
// A C view of the one thing LiveState asks of simdjson (Debian's libsimdjson-dev): the objects of a JSON
// array, many at a time, each written as one line of JSON in the form StrictJSON's writer gives the same
// value (JavaScript's JSON.stringify), with its id member and what a 2-space indent adds to it. Only the
// StrictJSON target calls it (CompactItemReader); everything the caller may not take as written (a number
// below 0.001, a duplicate key, too deep, bytes simdjson refuses) is left for the caller to
// read with jansson, so the strict rules and their messages stay jansson's.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What an item's id member holds.
typedef enum {
    /// No such member, or null.
    CSIMDJSON_ID_NONE = 0,
    /// An integer (`id_integer`).
    CSIMDJSON_ID_INTEGER = 1,
    /// A non-empty string (its UTF-8 at `id_start..<id_end` of the output).
    CSIMDJSON_ID_STRING = 2,
    /// Anything else (an empty string, a boolean, an array, an object): not an id.
    CSIMDJSON_ID_OTHER = 3,
} csimdjson_id_kind;

/// Why a read stopped.
typedef enum {
    /// At the most bytes asked for: more elements follow (read again from the last one's `next`).
    CSIMDJSON_STOP_LIMIT = 0,
    /// The input ends before the next element and the byte after it (`,` or `]`) are whole.
    CSIMDJSON_STOP_INCOMPLETE = 1,
    /// The next element is not taken here (not an object, too large, or malformed): the caller reads it.
    CSIMDJSON_STOP_OTHER = 2,
    /// The last element read is followed by `]`, the array's end (at the last element's `next`).
    CSIMDJSON_STOP_END = 3,
} csimdjson_stop;

/// One element of the array.
typedef struct {
    /// Its first byte and the byte just past its last, as offsets in the input.
    size_t start;
    size_t end;
    /// The offset of the `,` or `]` after it.
    size_t next;
    /// 1: its compact JSON is at `output_start..<output_end` of the output; 0: read it another way.
    int32_t written;
    csimdjson_id_kind id_kind;
    int64_t id_integer;
    size_t output_start;
    size_t output_end;
    size_t id_start;
    size_t id_end;
    /// The bytes a 2-space indent adds to the compact JSON, at depth 2 (an item of a data file's collection).
    size_t indentation;
} csimdjson_item;

typedef struct csimdjson_items csimdjson_items;

/// A reader with its own buffers (NULL when out of memory); used by one thread at a time.
csimdjson_items *csimdjson_items_create(void);
void csimdjson_items_destroy(csimdjson_items *items);

/// Reads the objects of an array from `input[start]` on (after the `[` or a `,`, whitespace allowed), up to
/// about `max_bytes` of them (at least one), each nested at most `max_depth` levels below the item itself;
/// `id_field` names the id member. Returns how many elements were read (0 to the count's end) and sets
/// `*stop`; -1 when out of memory. The items and the output stay valid until the next read.
long csimdjson_items_read(
    csimdjson_items *items, const uint8_t *input, size_t length, size_t start, size_t max_bytes,
    const uint8_t *id_field, size_t id_field_length, size_t max_depth, csimdjson_stop *stop);

/// The `index`th element of the last read.
const csimdjson_item *csimdjson_items_item(const csimdjson_items *items, size_t index);

/// The last read's output: the written items and string ids.
const uint8_t *csimdjson_items_output(const csimdjson_items *items);

#ifdef __cplusplus
}
#endif

#endif
