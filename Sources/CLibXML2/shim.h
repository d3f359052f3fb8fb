#ifndef FOLIO_CLIBXML2_SHIM_H
#define FOLIO_CLIBXML2_SHIM_H

// libxml2 built with ICU includes the system's ICU headers from encoding.h, whose enums clash
// with the copy of ICU inside swift-corelibs-foundation. Folio never touches the ICU members of
// xmlCharEncodingHandler, so the ICU part of the headers is switched off for Swift.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#endif
