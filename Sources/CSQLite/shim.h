#ifndef LIVESTATE_CSQLITE_SHIM_H
#define LIVESTATE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
