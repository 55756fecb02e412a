#ifndef SLUICE_CSQLITE_SHIM_H
#define SLUICE_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift cannot import: binds that must be
   copied by SQLite go through these adapters. */
static inline int csqlite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

static inline int csqlite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

#endif
