#ifndef LIVESTATE_CPCRE2_SHIM_H
#define LIVESTATE_CPCRE2_SHIM_H
// The 8-bit library: patterns and subjects are UTF-8, as Swift strings are. pcre2.h refuses to be
// included without a code unit width; its generic names (pcre2_compile) are macros Swift does not
// import, so the Swift side calls the `_8` functions.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#endif
