#ifndef FOLIO_SUPPORT_H
#define FOLIO_SUPPORT_H

/// Asks the processor to bring the cache line holding `address` near, for writing; a hint
/// that never faults, whatever the address. Swift has no way to say this.
static inline void folio_prefetch(const void *address) {
  __builtin_prefetch(address, 1, 3);
}

/// Asks the system to start writing `length` bytes of file `descriptor` from `offset` to
/// disk, without waiting for them (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`,
/// which Swift's Glibc module does not declare); 0, or -1 with `errno` set. Elsewhere it does
/// nothing and returns 0. Advisory: a later `fsync` is what makes the bytes durable.
int folio_start_writeback(int descriptor, long long offset, long long length);

#endif
