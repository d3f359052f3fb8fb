#include "CFolioSQLite.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A file system that passes everything to the system's default one, counting the operations
// that change files and killing the process before the chosen one. Debug builds only
// (FOLIO_TEST_HOOKS, Package.swift): a release build holds no fault injection.
#ifdef FOLIO_TEST_HOOKS

static sqlite3_vfs *underlying;
static sqlite3_vfs counting;
static long long operations;
static long long kill_before;

static void count_operation(void) {
  operations += 1;
  if (kill_before > 0 && operations >= kill_before) {
    kill(getpid(), SIGKILL);
  }
}

typedef struct {
  sqlite3_file base;
  sqlite3_file *real;
} counted_file;

static int c_close(sqlite3_file *file) {
  counted_file *f = (counted_file *)file;
  int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
  sqlite3_free(f->real);
  return rc;
}
static int c_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}
static int c_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
  counted_file *f = (counted_file *)file;
  count_operation();
  return f->real->pMethods->xWrite(f->real, buffer, amount, offset);
}
static int c_truncate(sqlite3_file *file, sqlite3_int64 size) {
  counted_file *f = (counted_file *)file;
  count_operation();
  return f->real->pMethods->xTruncate(f->real, size);
}
static int c_sync(sqlite3_file *file, int flags) {
  counted_file *f = (counted_file *)file;
  count_operation();
  return f->real->pMethods->xSync(f->real, flags);
}
static int c_size(sqlite3_file *file, sqlite3_int64 *size) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xFileSize(f->real, size);
}
static int c_lock(sqlite3_file *file, int level) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xLock(f->real, level);
}
static int c_unlock(sqlite3_file *file, int level) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xUnlock(f->real, level);
}
static int c_check_lock(sqlite3_file *file, int *out) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xCheckReservedLock(f->real, out);
}
static int c_control(sqlite3_file *file, int op, void *arg) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xFileControl(f->real, op, arg);
}
static int c_sector(sqlite3_file *file) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xSectorSize(f->real);
}
static int c_device(sqlite3_file *file) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xDeviceCharacteristics(f->real);
}
// Shared memory (the WAL index) is memory, rebuilt from the WAL after a crash: not counted.
static int c_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xShmMap(f->real, page, size, extend, out);
}
static int c_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}
static void c_shm_barrier(sqlite3_file *file) {
  counted_file *f = (counted_file *)file;
  f->real->pMethods->xShmBarrier(f->real);
}
static int c_shm_unmap(sqlite3_file *file, int delete_flag) {
  counted_file *f = (counted_file *)file;
  return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}
static int c_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
  counted_file *f = (counted_file *)file;
  *out = 0;  // no memory-mapped reads: every page goes through c_read
  (void)f; (void)offset; (void)amount;
  return SQLITE_OK;
}
static int c_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
  (void)file; (void)offset; (void)page;
  return SQLITE_OK;
}

static const sqlite3_io_methods counted_methods = {
  3, c_close, c_read, c_write, c_truncate, c_sync, c_size, c_lock, c_unlock, c_check_lock,
  c_control, c_sector, c_device, c_shm_map, c_shm_lock, c_shm_barrier, c_shm_unmap, c_fetch,
  c_unfetch,
};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out) {
  (void)vfs;
  counted_file *f = (counted_file *)file;
  f->real = sqlite3_malloc(underlying->szOsFile);
  if (!f->real) return SQLITE_NOMEM;
  memset(f->real, 0, underlying->szOsFile);
  int rc = underlying->xOpen(underlying, name, f->real, flags, out);
  if (rc != SQLITE_OK || !f->real->pMethods) {
    sqlite3_free(f->real);
    f->real = 0;
    f->base.pMethods = 0;
    return rc;
  }
  f->base.pMethods = &counted_methods;
  return rc;
}
static int v_delete(sqlite3_vfs *vfs, const char *name, int sync) {
  (void)vfs;
  count_operation();
  return underlying->xDelete(underlying, name, sync);
}
static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
  (void)vfs;
  return underlying->xAccess(underlying, name, flags, out);
}
static int v_full(sqlite3_vfs *vfs, const char *name, int size, char *out) {
  (void)vfs;
  return underlying->xFullPathname(underlying, name, size, out);
}
static void *v_dlopen(sqlite3_vfs *vfs, const char *name) {
  (void)vfs;
  return underlying->xDlOpen(underlying, name);
}
static void v_dlerror(sqlite3_vfs *vfs, int size, char *out) {
  (void)vfs;
  underlying->xDlError(underlying, size, out);
}
static void (*v_dlsym(sqlite3_vfs *vfs, void *handle, const char *name))(void) {
  (void)vfs;
  return underlying->xDlSym(underlying, handle, name);
}
static void v_dlclose(sqlite3_vfs *vfs, void *handle) {
  (void)vfs;
  underlying->xDlClose(underlying, handle);
}
static int v_random(sqlite3_vfs *vfs, int size, char *out) {
  (void)vfs;
  return underlying->xRandomness(underlying, size, out);
}
static int v_sleep(sqlite3_vfs *vfs, int micro) {
  (void)vfs;
  return underlying->xSleep(underlying, micro);
}
static int v_time(sqlite3_vfs *vfs, double *out) {
  (void)vfs;
  return underlying->xCurrentTime(underlying, out);
}
static int v_error(sqlite3_vfs *vfs, int size, char *out) {
  (void)vfs;
  return underlying->xGetLastError ? underlying->xGetLastError(underlying, size, out) : 0;
}
static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
  (void)vfs;
  return underlying->xCurrentTimeInt64(underlying, out);
}

int folio_sqlite_kill_before_operation(long long operation) {
  kill_before = operation;
  if (underlying) return SQLITE_OK;
  int rc = sqlite3_initialize();
  if (rc != SQLITE_OK) return rc;
  underlying = sqlite3_vfs_find(0);
  if (!underlying) return SQLITE_ERROR;
  memset(&counting, 0, sizeof counting);
  counting.iVersion = 2;
  counting.szOsFile = (int)sizeof(counted_file);
  counting.mxPathname = underlying->mxPathname;
  counting.zName = "folio-counting";
  counting.xOpen = v_open;
  counting.xDelete = v_delete;
  counting.xAccess = v_access;
  counting.xFullPathname = v_full;
  counting.xDlOpen = v_dlopen;
  counting.xDlError = v_dlerror;
  counting.xDlSym = v_dlsym;
  counting.xDlClose = v_dlclose;
  counting.xRandomness = v_random;
  counting.xSleep = v_sleep;
  counting.xCurrentTime = v_time;
  counting.xGetLastError = v_error;
  counting.xCurrentTimeInt64 = v_time64;
  return sqlite3_vfs_register(&counting, 1);
}

long long folio_sqlite_operations(void) { return operations; }
#endif

static void do_nothing(sqlite3_context *context, int count, sqlite3_value **values) {
  (void)count;
  (void)values;
  sqlite3_result_null(context);
}

int folio_sqlite_define_core_data_functions(sqlite3 *database) {
  static const char *names[] = {
    "NSCoreDataDATriggerUpdatedAffectedObjectValue",
    "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
  };
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
    int rc = sqlite3_create_function_v2(
      database, names[i], -1, SQLITE_UTF8, 0, do_nothing, 0, 0, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

int folio_sqlite_read_header(sqlite3 *database, unsigned char *buffer, int count) {
  sqlite3_file *file = 0;
  int rc = sqlite3_file_control(database, "main", SQLITE_FCNTL_FILE_POINTER, &file);
  if (rc != SQLITE_OK) return rc;
  if (!file || !file->pMethods) return SQLITE_ERROR;
  return file->pMethods->xRead(file, buffer, count, 0);
}
