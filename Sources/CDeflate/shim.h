#ifndef LIVESTATE_CDEFLATE_SHIM_H
#define LIVESTATE_CDEFLATE_SHIM_H
// libdeflate (Debian's libdeflate-dev): whole-buffer gzip, faster than zlib for bodies that are
// compressed once and sent many times. Its API is plain functions; nothing to wrap here.
#include <libdeflate.h>

#endif
