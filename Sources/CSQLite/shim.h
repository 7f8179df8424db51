#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

#if SQLITE_VERSION_NUMBER < 3035000
#error "locsim needs SQLite 3.35 or newer (Debian 12 ships 3.40)"
#endif

/// SQLITE_TRANSIENT is a cast macro that Swift cannot import; this returns the same sentinel.
static inline sqlite3_destructor_type CSQLite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// SQLITE_STATIC (a null destructor): SQLite does not copy the bound value.
static inline sqlite3_destructor_type CSQLite_static(void) {
    return SQLITE_STATIC;
}

#endif
