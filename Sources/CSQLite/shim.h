#ifndef LIVESTATE_CSQLITE_SHIM_H
#define LIVESTATE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift does not import:
// bind text that SQLite copies before the call returns (the Swift string's buffer is temporary).
static inline int CSQLite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

#endif
