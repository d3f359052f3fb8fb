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

#endif
