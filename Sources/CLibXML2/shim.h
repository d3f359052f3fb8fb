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
#include <stdlib.h>
#include <string.h>

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

/// The structured error handler libxml2 uses on this thread for errors that belong to no
/// parser context, such as an output buffer's `I/O error : flush error`.
typedef struct {
  xmlStructuredErrorFunc handler;
  void *context;
} folio_xml_thread_errors;

/// Records the first such error into `data`, a `folio_xml_first_error`.
static inline void folio_xml_keep_thread_error(void *data, xmlErrorPtr error) {
  folio_xml_record_first_error(data, error);
}

/// Sends this thread's context-free libxml2 errors to `first` instead of standard error, and
/// returns the handler to put back with `folio_xml_restore_thread_errors`.
static inline folio_xml_thread_errors folio_xml_capture_thread_errors(
    folio_xml_first_error *first) {
  folio_xml_thread_errors previous = {xmlStructuredError, xmlStructuredErrorContext};
  xmlSetStructuredErrorFunc(first, folio_xml_keep_thread_error);
  return previous;
}

static inline void folio_xml_restore_thread_errors(folio_xml_thread_errors previous) {
  xmlSetStructuredErrorFunc(previous.context, previous.handler);
}

/// Ignores a message of libxml2's generic error handler.
static inline void folio_xml_ignore_generic_error(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}

/// This thread's two libxml2 error handlers: the structured one, and the generic one that
/// gets the few messages no structured handler sees (`xmlParseChunk: encoder error`).
typedef struct {
  folio_xml_thread_errors structured;
  xmlGenericErrorFunc generic;
  void *genericContext;
} folio_xml_thread_handlers;

/// Sends this thread's context-free libxml2 errors to `first` and drops its generic messages,
/// which only repeat them; returns what `folio_xml_restore_thread_handlers` puts back.
static inline folio_xml_thread_handlers folio_xml_capture_thread_handlers(
    folio_xml_first_error *first) {
  folio_xml_thread_handlers previous = {folio_xml_capture_thread_errors(first), xmlGenericError,
                                        xmlGenericErrorContext};
  xmlSetGenericErrorFunc(NULL, folio_xml_ignore_generic_error);
  return previous;
}

static inline void folio_xml_restore_thread_handlers(folio_xml_thread_handlers previous) {
  xmlSetGenericErrorFunc(previous.genericContext, previous.generic);
  folio_xml_restore_thread_errors(previous.structured);
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

static const char *const folio_xml_known_names[FOLIO_XML_NAME_COUNT] = {
    "",          "database", "databaseInfo", "object", "attribute",   "relationship",
    "name",      "type",     "id",           "destination", "idrefs"};

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

/* Which known name `name` is. libxml2 hands SAX2 callbacks names from the parser's
   dictionary, so a known name is the same pointer; a name the dictionary does not own (no
   libxml2 does this) is compared as a string. */
static inline int folio_xml_known_name(const folio_xml_events *queue, const xmlChar *name) {
  for (int index = 1; index < FOLIO_XML_NAME_COUNT; index++) {
    if (queue->known[index] == name) return index;
  }
  if (name == NULL) return FOLIO_XML_NAME_OTHER;
  if (queue->hasKnown && queue->parser != NULL && queue->parser->dict != NULL &&
      xmlDictOwns(queue->parser->dict, name) == 1) {
    return FOLIO_XML_NAME_OTHER;
  }
  for (int index = 1; index < FOLIO_XML_NAME_COUNT; index++) {
    if (strcmp((const char *)name, folio_xml_known_names[index]) == 0) return index;
  }
  return FOLIO_XML_NAME_OTHER;
}

static inline int folio_xml_events_grow(void **buffer, size_t *capacity, size_t needed,
                                        size_t size) {
  if (needed <= *capacity) return 1;
  size_t capacity2 = *capacity < 64 ? 64 : *capacity;
  while (capacity2 < needed) capacity2 *= 2;
  void *grown = realloc(*buffer, capacity2 * size);
  if (grown == NULL) return 0;
  *buffer = grown;
  *capacity = capacity2;
  return 1;
}

static inline void folio_xml_events_fail(folio_xml_events *queue) {
  queue->isOutOfMemory = 1;
  if (queue->parser != NULL) xmlStopParser(queue->parser);
}

static inline folio_xml_event *folio_xml_events_append(folio_xml_events *queue, int kind) {
  if (!folio_xml_events_grow((void **)&queue->events, &queue->eventCapacity,
                             queue->eventCount + 1, sizeof(folio_xml_event))) {
    folio_xml_events_fail(queue);
    return NULL;
  }
  folio_xml_event *event = &queue->events[queue->eventCount++];
  event->kind = kind;
  event->known = FOLIO_XML_NAME_OTHER;
  event->line = queue->parser != NULL && queue->parser->input != NULL ? queue->parser->input->line
                                                                       : 0;
  event->name = NULL;
  event->start = 0;
  event->count = 0;
  return event;
}

/* Appends `count` bytes and a NUL; returns the offset of the bytes, or (size_t)-1. */
static inline size_t folio_xml_events_copy(folio_xml_events *queue, const xmlChar *text,
                                           size_t count) {
  if (!folio_xml_events_grow((void **)&queue->bytes, &queue->byteCapacity,
                             queue->byteCount + count + 1, 1)) {
    folio_xml_events_fail(queue);
    return (size_t)-1;
  }
  size_t start = queue->byteCount;
  memcpy(queue->bytes + start, text, count);
  queue->bytes[start + count] = 0;
  queue->byteCount += count + 1;
  return start;
}

static inline void folio_xml_sax_start(void *context, const xmlChar *localname,
                                       const xmlChar *prefix, const xmlChar *uri,
                                       int namespaceCount, const xmlChar **namespaces,
                                       int attributeCount, int defaultedCount,
                                       const xmlChar **attributes) {
  folio_xml_events *queue = (folio_xml_events *)context;
  (void)prefix, (void)uri, (void)namespaceCount, (void)namespaces, (void)defaultedCount;
  folio_xml_event *event = folio_xml_events_append(queue, FOLIO_XML_START);
  if (event == NULL) return;
  event->name = localname;
  event->known = folio_xml_known_name(queue, localname);
  event->start = queue->attributeCount;
  event->count = attributeCount > 0 ? (size_t)attributeCount : 0;
  if (attributeCount <= 0) return;
  if (!folio_xml_events_grow((void **)&queue->attributes, &queue->attributeCapacity,
                             queue->attributeCount + (size_t)attributeCount,
                             sizeof(folio_xml_event_attribute))) {
    folio_xml_events_fail(queue);
    return;
  }
  for (int index = 0; index < attributeCount; index++) {
    const xmlChar *value = attributes[index * 5 + 3];
    const xmlChar *end = attributes[index * 5 + 4];
    size_t count = (size_t)(end - value);
    size_t start = folio_xml_events_copy(queue, value, count);
    if (start == (size_t)-1) return;
    /* Without entity substitution libxml2 hands `&` over as `&#38;`, as the tree builder
       expects; the tree's attribute value, and so ours, has the `&`. */
    if (memchr(value, '&', count) != NULL) {
      unsigned char *bytes = queue->bytes + start;
      size_t read = 0, write = 0;
      while (read < count) {
        if (read + 5 <= count && memcmp(bytes + read, "&#38;", 5) == 0) {
          bytes[write++] = '&';
          read += 5;
        } else {
          bytes[write++] = bytes[read++];
        }
      }
      bytes[write] = 0;
      count = write;
    }
    folio_xml_event_attribute *attribute = &queue->attributes[queue->attributeCount++];
    attribute->name = attributes[index * 5];
    attribute->known = folio_xml_known_name(queue, attribute->name);
    attribute->start = start;
    attribute->count = count;
  }
}

static inline void folio_xml_sax_end(void *context, const xmlChar *localname,
                                     const xmlChar *prefix, const xmlChar *uri) {
  (void)prefix, (void)uri;
  folio_xml_event *event = folio_xml_events_append((folio_xml_events *)context, FOLIO_XML_END);
  if (event != NULL) {
    event->name = localname;
    event->known = folio_xml_known_name((folio_xml_events *)context, localname);
  }
}

static inline void folio_xml_sax_text(void *context, const xmlChar *text, int length) {
  folio_xml_events *queue = (folio_xml_events *)context;
  if (length <= 0) return;
  if (queue->eventCount > 0 && queue->events[queue->eventCount - 1].kind == FOLIO_XML_TEXT) {
    /* Adjacent text joins the last text, which ends the bytes: drop its NUL and extend it. */
    folio_xml_event *last = &queue->events[queue->eventCount - 1];
    queue->byteCount -= 1;
    if (folio_xml_events_copy(queue, text, (size_t)length) == (size_t)-1) return;
    last = &queue->events[queue->eventCount - 1];
    last->count += (size_t)length;
    return;
  }
  folio_xml_event *event = folio_xml_events_append(queue, FOLIO_XML_TEXT);
  if (event == NULL) return;
  size_t start = folio_xml_events_copy(queue, text, (size_t)length);
  if (start == (size_t)-1) return;
  event = &queue->events[queue->eventCount - 1];
  event->start = start;
  event->count = (size_t)length;
}

static inline void folio_xml_sax_reference(void *context, const xmlChar *name) {
  folio_xml_event *event =
      folio_xml_events_append((folio_xml_events *)context, FOLIO_XML_REFERENCE);
  if (event != NULL) event->name = name;
}

static inline void folio_xml_sax_error(void *context, xmlErrorPtr error) {
  folio_xml_events *queue = (folio_xml_events *)context;
  folio_xml_record_first_error(queue->firstError, error);
}

/* Empties the queue before the parser is given more input. */
static inline void folio_xml_events_clear(folio_xml_events *queue) {
  queue->eventCount = 0;
  queue->attributeCount = 0;
  queue->byteCount = 0;
}

static inline void folio_xml_events_free(folio_xml_events *queue) {
  free(queue->events);
  free(queue->attributes);
  free(queue->bytes);
  queue->events = NULL;
  queue->attributes = NULL;
  queue->bytes = NULL;
}

/* A push parser whose SAX2 callbacks fill `queue`, with the first error kept in `queue`'s
   `firstError`. Nothing else is handled: no tree is built, no DTD is read, no entity is
   resolved (an entity reference becomes an event). */
static inline xmlParserCtxtPtr folio_xml_events_parser(folio_xml_events *queue,
                                                       const char *chunk, int size,
                                                       const char *path, int options) {
  xmlSAXHandler handler;
  memset(&handler, 0, sizeof handler);
  handler.initialized = XML_SAX2_MAGIC;
  handler.startElementNs = folio_xml_sax_start;
  handler.endElementNs = folio_xml_sax_end;
  handler.characters = folio_xml_sax_text;
  handler.ignorableWhitespace = folio_xml_sax_text;
  handler.cdataBlock = folio_xml_sax_text;
  handler.reference = folio_xml_sax_reference;
  handler.serror = folio_xml_sax_error;
  xmlParserCtxtPtr parser = xmlCreatePushParserCtxt(&handler, queue, chunk, size, path);
  if (parser == NULL) return NULL;
  xmlCtxtUseOptions(parser, options);
  queue->parser = parser;
  queue->hasKnown = parser->dict != NULL;
  for (int index = 1; index < FOLIO_XML_NAME_COUNT; index++) {
    queue->known[index] =
        parser->dict != NULL
            ? xmlDictLookup(parser->dict, (const xmlChar *)folio_xml_known_names[index], -1)
            : NULL;
    if (queue->known[index] == NULL) queue->hasKnown = 0;
  }
  return parser;
}

/* Whether the parser has met an error. */
static inline int folio_xml_parser_failed(const xmlParserCtxt *parser) {
  return parser->wellFormed == 0 || parser->disableSAX != 0;
}

/* The encoding the parser decodes its input from, or NULL for UTF-8 without an encoder. */
static inline const char *folio_xml_parser_encoding(const xmlParserCtxt *parser) {
  if (parser->input != NULL && parser->input->buf != NULL &&
      parser->input->buf->encoder != NULL && parser->input->buf->encoder->name != NULL)
    return parser->input->buf->encoder->name;
  return parser->encoding != NULL ? (const char *)parser->encoding : NULL;
}

/* How many bytes given to the parser its decoder has not taken (those from a byte it could
   not decode on); -1 when the parser has no undecoded bytes buffer. */
static inline long folio_xml_parser_undecoded(const xmlParserCtxt *parser) {
  if (parser->input == NULL || parser->input->buf == NULL || parser->input->buf->raw == NULL)
    return -1;
  return (long)xmlBufUse(parser->input->buf->raw);
}

/* The parser's current line. */
static inline int folio_xml_parser_line(const xmlParserCtxt *parser) {
  return parser->input != NULL ? parser->input->line : 0;
}

#endif
