#ifndef LIVESTATE_CJANSSON_SHIM_H
#define LIVESTATE_CJANSSON_SHIM_H
#include <jansson.h>

// json_decref is a static inline function around a macro on the reference count; Swift imports it,
// but json_typeof is a macro reading the struct, so it gets a function here.
static inline json_type CJansson_typeof(const json_t *json) {
    return json_typeof(json);
}

#endif
