#ifndef FOLIO_CZLIB_SHIM_H
#define FOLIO_CZLIB_SHIM_H

#include <zlib.h>

/// zlib's deflateInit and inflateInit are macros, which Swift cannot call.
static inline int folio_deflate_init(z_streamp stream, int level) {
  return deflateInit(stream, level);
}

static inline int folio_inflate_init(z_streamp stream) {
  return inflateInit(stream);
}

/// Stops the stream computing and checking its Adler-32 (zlib 1.2.9 and later; earlier ones
/// keep checking): the binary store's section CRC-32 already covers every byte of the stream,
/// its trailer included, and the Adler-32 cost a tenth of a load.
static inline void folio_inflate_skip_check(z_streamp stream) {
#if ZLIB_VERNUM >= 0x1290
  inflateValidate(stream, 0);
#else
  (void)stream;
#endif
}

#endif
