#ifndef FOLIO_SUPPORT_H
#define FOLIO_SUPPORT_H

/// Asks the processor to bring the cache line holding `address` near, for writing; a hint
/// that never faults, whatever the address. Swift has no way to say this.
static inline void folio_prefetch(const void *address) {
  __builtin_prefetch(address, 1, 3);
}

#endif
