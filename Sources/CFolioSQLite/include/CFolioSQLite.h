#ifndef FOLIO_SQLITE_H
#define FOLIO_SQLITE_H

/// Makes SQLite's default file system one that counts the operations that change files on
/// disk (writes, truncations, syncs and deletions, in any file: database, journal, WAL) and
/// sends the process `SIGKILL` just before the one numbered `operation` (from 1): a crash at a
/// chosen point of a save, for the tests that a killed SQLite save leaves the old state or
/// the new one. Every operation before it has reached the system, as a killed process's writes
/// have. Returns 0, or an SQLite error code when the file system cannot be installed. Defined
/// in debug builds only (FOLIO_TEST_HOOKS), as is `folio_sqlite_operations`.
int folio_sqlite_kill_before_operation(long long operation);

/// How many operations that change files the counting file system has seen so far.
long long folio_sqlite_operations(void);

typedef struct sqlite3 sqlite3;

/// Defines on `database` the SQL functions that Core Data's triggers for derived attributes
/// call after they have updated a derived column (`NSCoreDataDATriggerUpdatedAffectedObjectValue`,
/// `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`): they tell Core Data's own row cache
/// which objects changed, which Folio does not need, so here they do nothing and return NULL.
/// Without them, any write that fires such a trigger fails with "no such function". Returns
/// an SQLite result code.
int folio_sqlite_define_core_data_functions(sqlite3 *database);

/// Reads the first `count` bytes of `database`'s main file through the connection's own file
/// handle (its VFS's `xRead`), not through a descriptor of the caller's: closing another
/// descriptor of the file would drop the POSIX locks SQLite holds on it. The header read while
/// the connection holds a lock is the one its transaction sees (in rollback-journal mode). A
/// file shorter than `count` reads as zeros past its end (`SQLITE_IOERR_SHORT_READ`). Returns an
/// SQLite result code.
int folio_sqlite_read_header(sqlite3 *database, unsigned char *buffer, int count);

#endif
