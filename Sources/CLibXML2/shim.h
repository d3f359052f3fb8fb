#ifndef FOLIO_CLIBXML2_SHIM_H
#define FOLIO_CLIBXML2_SHIM_H

/* libxml2 built with ICU includes the system's <unicode/*.h> from encoding.h, whose enums clash
   with the copy of ICU inside swift-corelibs-foundation. Folio never touches the ICU members of
   xmlCharEncodingHandler, so the ICU part of the headers is switched off for Swift. */
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

/// Builds the element as libxml2 does, then keeps its exact line in `_private`: the node's own
/// `line` field stops at 65535, and xmlGetLineNo's workaround needs neighbouring text nodes.
static inline void folio_xml_start_element(
    void *context, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
    int namespaceCount, const xmlChar **namespaces, int attributeCount, int defaultedCount,
    const xmlChar **attributes) {
  xmlParserCtxtPtr parser = (xmlParserCtxtPtr)context;
  xmlSAX2StartElementNs(context, localname, prefix, uri, namespaceCount, namespaces,
                        attributeCount, defaultedCount, attributes);
  if (parser->node != NULL && parser->input != NULL && parser->input->line > 0) {
    parser->node->_private = (void *)(ptrdiff_t)parser->input->line;
  }
}

/// The 1-based line of an element.
static inline long folio_xml_node_line(const xmlNode *node) {
  if (node->_private != NULL) return (long)(ptrdiff_t)node->_private;
  return xmlGetLineNo(node);
}

/// xmlFree is a global function pointer, which Swift 6 will not read from any thread.
static inline void folio_xml_free(void *pointer) {
  xmlFree(pointer);
}

/// The first error libxml2 reports while parsing; later errors are often consequences of it
/// ("Premature end of data" after a tag mismatch), so the first is the one worth showing.
typedef struct {
  int isSet;
  int line;
  int column;
  char message[512];
} folio_xml_first_error;

static inline void folio_xml_record_error(void *data, xmlErrorPtr error) {
  xmlParserCtxtPtr context = (xmlParserCtxtPtr)data;
  folio_xml_first_error *first = context ? (folio_xml_first_error *)context->_private : NULL;
  if (first == NULL || error == NULL || first->isSet || error->level < XML_ERR_ERROR) return;
  first->isSet = 1;
  first->line = error->line;
  first->column = error->int2;
  snprintf(first->message, sizeof first->message, "%s", error->message ? error->message : "");
}

/// Sends the parser's errors to `first` instead of standard error, and records exact lines.
static inline void folio_xml_capture_errors(xmlParserCtxtPtr context, folio_xml_first_error *first) {
  context->_private = first;
  context->sax->serror = folio_xml_record_error;
  context->sax->startElementNs = folio_xml_start_element;
}

/// Records the first error of a reader, a RELAX NG parser or a validator into `data`, a
/// `folio_xml_first_error`; libxml2 then prints nothing.
static inline void folio_xml_record_first_error(void *data, xmlErrorPtr error) {
  folio_xml_first_error *first = (folio_xml_first_error *)data;
  if (first == NULL || error == NULL || first->isSet || error->level < XML_ERR_ERROR) return;
  first->isSet = 1;
  first->line = error->line;
  first->column = error->int2;
  snprintf(first->message, sizeof first->message, "%s", error->message ? error->message : "");
}

/// Sends a streaming reader's errors to `first` instead of standard error.
static inline void folio_xml_reader_capture_errors(xmlTextReaderPtr reader,
                                                   folio_xml_first_error *first) {
  xmlTextReaderSetStructuredErrorHandler(reader, folio_xml_record_first_error, first);
}

/// Sends a RELAX NG schema parser's errors to `first`.
static inline void folio_xml_relaxng_parser_capture_errors(xmlRelaxNGParserCtxtPtr context,
                                                           folio_xml_first_error *first) {
  xmlRelaxNGSetParserStructuredErrors(context, folio_xml_record_first_error, first);
}

/// Sends a RELAX NG validator's errors to `first`.
static inline void folio_xml_relaxng_validator_capture_errors(xmlRelaxNGValidCtxtPtr context,
                                                              folio_xml_first_error *first) {
  xmlRelaxNGSetValidStructuredErrors(context, folio_xml_record_first_error, first);
}

#endif
