#ifndef FOLIO_CFOLIOXML_H
#define FOLIO_CFOLIOXML_H

/* What Folio's XML code needs of libxml2 that Swift cannot say well, in C:

   - error capture: libxml2 prints its errors to standard error unless a handler takes them;
     these handlers keep the first error of a parser, reader, RELAX NG parser or validator, or
     of the thread (for errors that belong to no parser), so Folio can report it with its line;
   - exact element lines for the model reader's tree (libxml2's own stop at 65535);
   - the XML store's SAX event queue: SAX2 callbacks of a push parser append start tags (with
     their attributes), end tags, text and entity references to flat arrays, which the Swift
     reader then walks as a pull stream. In C, the callbacks, the hottest path of a load, run
     without Swift's reference counting.

   The implementation is CFolioXML.c. Nothing here is public API: Folio's modules import this
   target with `internal import`. */

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

/// The 1-based line of an element.
long folio_xml_node_line(const xmlNode *node);

/// xmlFree is a global function pointer, which Swift 6 will not read from any thread.
void folio_xml_free(void *pointer);

/// The first error libxml2 reports while parsing; later errors are often consequences of it
/// ("Premature end of data" after a tag mismatch), so the first is the one worth showing.
typedef struct {
  int isSet;
  int line;
  int column;
  char message[512];
} folio_xml_first_error;

/// Sends the parser's errors to `first` instead of standard error, and records exact lines.
void folio_xml_capture_errors(xmlParserCtxtPtr context, folio_xml_first_error *first);

/// The structured error handler libxml2 uses on this thread for errors that belong to no
/// parser context, such as an output buffer's `I/O error : flush error`.
typedef struct {
  xmlStructuredErrorFunc handler;
  void *context;
} folio_xml_thread_errors;

/// Sends this thread's context-free libxml2 errors to `first` instead of standard error, and
/// returns the handler to put back with `folio_xml_restore_thread_errors`.
folio_xml_thread_errors folio_xml_capture_thread_errors(
    folio_xml_first_error *first);

void folio_xml_restore_thread_errors(folio_xml_thread_errors previous);

/// This thread's two libxml2 error handlers: the structured one, and the generic one that
/// gets the few messages no structured handler sees (`xmlParseChunk: encoder error`).
typedef struct {
  folio_xml_thread_errors structured;
  xmlGenericErrorFunc generic;
  void *genericContext;
} folio_xml_thread_handlers;

/// Sends this thread's context-free libxml2 errors to `first` and drops its generic messages,
/// which only repeat them; returns what `folio_xml_restore_thread_handlers` puts back.
folio_xml_thread_handlers folio_xml_capture_thread_handlers(
    folio_xml_first_error *first);

void folio_xml_restore_thread_handlers(folio_xml_thread_handlers previous);

/// Sends a RELAX NG schema parser's errors to `first`.
void folio_xml_relaxng_parser_capture_errors(xmlRelaxNGParserCtxtPtr context,
    folio_xml_first_error *first);

/// Sends a RELAX NG validator's errors to `first`.
void folio_xml_relaxng_validator_capture_errors(xmlRelaxNGValidCtxtPtr context,
    folio_xml_first_error *first);

/* An event queue filled by SAX2 callbacks of a push parser, which the XML store reads as a pull
   stream: a start tag with its attributes, an end tag, text, or an entity reference. Names are
   libxml2's interned strings; values and text are copied into `bytes`, NUL-terminated. C keeps
   the callbacks free of Swift's reference counting on the hottest path of a load. */
enum {
  FOLIO_XML_START = 1,
  FOLIO_XML_END = 2,
  FOLIO_XML_TEXT = 3,
  FOLIO_XML_REFERENCE = 4
};

/* The names an XML store's objects are made of, which the reader asks about for every element
   and attribute: each event says which one it has, found by comparing libxml2's interned name
   with the interned known names, so the reader compares small integers, never strings. */
enum {
  FOLIO_XML_NAME_OTHER = 0,
  FOLIO_XML_NAME_DATABASE,
  FOLIO_XML_NAME_DATABASE_INFO,
  FOLIO_XML_NAME_OBJECT,
  FOLIO_XML_NAME_ATTRIBUTE,
  FOLIO_XML_NAME_RELATIONSHIP,
  FOLIO_XML_NAME_NAME,
  FOLIO_XML_NAME_TYPE,
  FOLIO_XML_NAME_ID,
  FOLIO_XML_NAME_DESTINATION,
  FOLIO_XML_NAME_IDREFS,
  FOLIO_XML_NAME_COUNT
};

typedef struct {
  int kind;
  int line;
  /* A start or end tag: which known name it has (FOLIO_XML_NAME_OTHER for any other). */
  int known;
  const xmlChar *name;
  /* A start tag: its first attribute in `attributes`; text: its offset in `bytes`. */
  size_t start;
  /* A start tag: its attribute count; text: its length. */
  size_t count;
} folio_xml_event;

typedef struct {
  const xmlChar *name;
  int known;
  size_t start;
  size_t count;
} folio_xml_event_attribute;

typedef struct {
  folio_xml_event *events;
  size_t eventCount;
  size_t eventCapacity;
  folio_xml_event_attribute *attributes;
  size_t attributeCount;
  size_t attributeCapacity;
  unsigned char *bytes;
  size_t byteCount;
  size_t byteCapacity;
  int isOutOfMemory;
  xmlParserCtxtPtr parser;
  folio_xml_first_error *firstError;
  /* The known names as the parser's dictionary holds them (index 0 unused). */
  const xmlChar *known[FOLIO_XML_NAME_COUNT];
  /* Whether every known name is in the dictionary. */
  int hasKnown;
} folio_xml_events;

/* Empties the queue before the parser is given more input. */
void folio_xml_events_clear(folio_xml_events *queue);

/* Swaps the events, attributes and bytes of two queues (and their counts and capacities),
   leaving each queue's parser, error and known names where they are. */
void folio_xml_events_swap(folio_xml_events *a, folio_xml_events *b);

void folio_xml_events_free(folio_xml_events *queue);

/* A push parser whose SAX2 callbacks fill `queue`, with the first error kept in `queue`'s
   `firstError`. Nothing else is handled: no tree is built, no DTD is read, no entity is
   resolved (an entity reference becomes an event). */
xmlParserCtxtPtr folio_xml_events_parser(folio_xml_events *queue,
    const char *chunk, int size,
    const char *path, int options);

/* Whether the parser has met an error. */
int folio_xml_parser_failed(const xmlParserCtxt *parser);

/* The encoding the parser decodes its input from, or NULL for UTF-8 without an encoder. */
const char *folio_xml_parser_encoding(const xmlParserCtxt *parser);

/* The parser's current line. */
int folio_xml_parser_line(const xmlParserCtxt *parser);

#endif
