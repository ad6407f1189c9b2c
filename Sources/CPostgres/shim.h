#ifndef LIVESTATE_CPOSTGRES_SHIM_H
#define LIVESTATE_CPOSTGRES_SHIM_H
// libpq (Debian's libpq-dev): only the client API. Debian puts it under /usr/include/postgresql (what
// `pkg-config --cflags libpq` says); C modules here get no pkg-config flags, so the path is spelled out
// (libpq-fe.h finds its own postgres_ext.h next to itself).
#include <postgresql/libpq-fe.h>

#endif
