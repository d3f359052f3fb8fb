// CFolioSupport is header-only (include/CFolioSupport.h); a C target needs one source file.
#include "CFolioSupport.h"
