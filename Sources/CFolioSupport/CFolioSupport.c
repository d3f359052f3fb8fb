// What Swift cannot say or reach: the prefetch hint (header-only, inline) and system calls
// that Swift's Glibc module does not declare.
#define _GNU_SOURCE
#include <fcntl.h>

#include "CFolioSupport.h"

int folio_start_writeback(int descriptor, long long offset, long long length) {
#ifdef SYNC_FILE_RANGE_WRITE
  return sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
  (void)descriptor;
  (void)offset;
  (void)length;
  return 0;
#endif
}
