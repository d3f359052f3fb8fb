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

/// Catches SIGINT: the first one sets a flag that `folio_interrupt_requested` reads, and puts
/// back the default action, so a second one ends the process. (A signal handler may only set
/// such a flag; Swift cannot write one.)
void folio_catch_interrupts(void);

/// Whether SIGINT arrived since `folio_catch_interrupts`.
int folio_interrupt_requested(void);

/// Flushes standard output; 0 when everything written to it so far reached its file, else the
/// `errno` of the failure (or EIO when it is not known).
int folio_flush_standard_output(void);

/// Writes `count` bytes to standard output, after what `printf` and Swift's `print` wrote
/// before; 0, or the `errno` of the failure (EIO when it is not known).
int folio_write_standard_output(const void *bytes, unsigned long count);

/// Opens a new pseudo-terminal: its master side's descriptor, with the path of its terminal
/// side written to `name` (of `capacity` bytes); -1 with `errno` set when it cannot. Swift's
/// Glibc module does not declare `posix_openpt` and the calls that go with it.
int folio_open_pseudo_terminal(char *name, unsigned long capacity);

#endif
