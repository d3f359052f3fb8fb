/* The error handlers and the SAX event queue declared in CFolioXML.h. */

#include "CFolioXML.h"

/// Builds the element as libxml2 does, then keeps its exact line in `_private`: the node's own
/// `line` field stops at 65535, and xmlGetLineNo's workaround needs neighbouring text nodes.
static void folio_xml_start_element(
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

long folio_xml_node_line(const xmlNode *node) {
  if (node->_private != NULL) return (long)(ptrdiff_t)node->_private;
  return xmlGetLineNo(node);
}

void folio_xml_free(void *pointer) {
  xmlFree(pointer);
}

/// Records the first error of a reader, a RELAX NG parser or a validator into `data`, a
/// `folio_xml_first_error`; libxml2 then prints nothing.
static void folio_xml_record_first_error(void *data, xmlErrorPtr error) {
  folio_xml_first_error *first = (folio_xml_first_error *)data;
  if (first == NULL || error == NULL || first->isSet || error->level < XML_ERR_ERROR) return;
  first->isSet = 1;
  first->line = error->line;
  first->column = error->int2;
  snprintf(first->message, sizeof first->message, "%s", error->message ? error->message : "");
}

/// Records a parser's first error into the `folio_xml_first_error` its `_private` holds.
static void folio_xml_record_error(void *data, xmlErrorPtr error) {
  xmlParserCtxtPtr context = (xmlParserCtxtPtr)data;
  folio_xml_record_first_error(context ? context->_private : NULL, error);
}

void folio_xml_capture_errors(xmlParserCtxtPtr context, folio_xml_first_error *first) {
  context->_private = first;
  context->sax->serror = folio_xml_record_error;
  context->sax->startElementNs = folio_xml_start_element;
}


/// Records the first such error into `data`, a `folio_xml_first_error`.
static void folio_xml_keep_thread_error(void *data, xmlErrorPtr error) {
  folio_xml_record_first_error(data, error);
}

folio_xml_thread_errors folio_xml_capture_thread_errors(
    folio_xml_first_error *first) {
  folio_xml_thread_errors previous = {xmlStructuredError, xmlStructuredErrorContext};
  xmlSetStructuredErrorFunc(first, folio_xml_keep_thread_error);
  return previous;
}

void folio_xml_restore_thread_errors(folio_xml_thread_errors previous) {
  xmlSetStructuredErrorFunc(previous.context, previous.handler);
}

/// Ignores a message of libxml2's generic error handler.
static void folio_xml_ignore_generic_error(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}

folio_xml_thread_handlers folio_xml_capture_thread_handlers(
    folio_xml_first_error *first) {
  folio_xml_thread_handlers previous = {folio_xml_capture_thread_errors(first), xmlGenericError,
                                        xmlGenericErrorContext};
  xmlSetGenericErrorFunc(NULL, folio_xml_ignore_generic_error);
  return previous;
}

void folio_xml_restore_thread_handlers(folio_xml_thread_handlers previous) {
  xmlSetGenericErrorFunc(previous.genericContext, previous.generic);
  folio_xml_restore_thread_errors(previous.structured);
}

void folio_xml_relaxng_parser_capture_errors(xmlRelaxNGParserCtxtPtr context,
                                                           folio_xml_first_error *first) {
  xmlRelaxNGSetParserStructuredErrors(context, folio_xml_record_first_error, first);
}

void folio_xml_relaxng_validator_capture_errors(xmlRelaxNGValidCtxtPtr context,
                                                              folio_xml_first_error *first) {
  xmlRelaxNGSetValidStructuredErrors(context, folio_xml_record_first_error, first);
}

static const char *const folio_xml_known_names[FOLIO_XML_NAME_COUNT] = {
    "",          "database", "databaseInfo", "object", "attribute",   "relationship",
    "name",      "type",     "id",           "destination", "idrefs"};

/* Which known name `name` is. libxml2 hands SAX2 callbacks names from the parser's
   dictionary, so a known name is the same pointer; a name the dictionary does not own (no
   libxml2 does this) is compared as a string. */
static int folio_xml_known_name(const folio_xml_events *queue, const xmlChar *name) {
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

static int folio_xml_events_grow(void **buffer, size_t *capacity, size_t needed,
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

static void folio_xml_events_fail(folio_xml_events *queue) {
  queue->isOutOfMemory = 1;
  if (queue->parser != NULL) xmlStopParser(queue->parser);
}

static folio_xml_event *folio_xml_events_append(folio_xml_events *queue, int kind) {
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
static size_t folio_xml_events_copy(folio_xml_events *queue, const xmlChar *text,
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

static void folio_xml_sax_start(void *context, const xmlChar *localname,
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

static void folio_xml_sax_end(void *context, const xmlChar *localname,
                                     const xmlChar *prefix, const xmlChar *uri) {
  (void)prefix, (void)uri;
  folio_xml_event *event = folio_xml_events_append((folio_xml_events *)context, FOLIO_XML_END);
  if (event != NULL) {
    event->name = localname;
    event->known = folio_xml_known_name((folio_xml_events *)context, localname);
  }
}

static void folio_xml_sax_text(void *context, const xmlChar *text, int length) {
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

static void folio_xml_sax_reference(void *context, const xmlChar *name) {
  folio_xml_event *event =
      folio_xml_events_append((folio_xml_events *)context, FOLIO_XML_REFERENCE);
  if (event != NULL) event->name = name;
}

static void folio_xml_sax_error(void *context, xmlErrorPtr error) {
  folio_xml_events *queue = (folio_xml_events *)context;
  folio_xml_record_first_error(queue->firstError, error);
}

void folio_xml_events_clear(folio_xml_events *queue) {
  queue->eventCount = 0;
  queue->attributeCount = 0;
  queue->byteCount = 0;
}

void folio_xml_events_swap(folio_xml_events *a, folio_xml_events *b) {
  folio_xml_events kept = *a;
  a->events = b->events;
  a->eventCount = b->eventCount;
  a->eventCapacity = b->eventCapacity;
  a->attributes = b->attributes;
  a->attributeCount = b->attributeCount;
  a->attributeCapacity = b->attributeCapacity;
  a->bytes = b->bytes;
  a->byteCount = b->byteCount;
  a->byteCapacity = b->byteCapacity;
  a->isOutOfMemory = b->isOutOfMemory;
  b->events = kept.events;
  b->eventCount = kept.eventCount;
  b->eventCapacity = kept.eventCapacity;
  b->attributes = kept.attributes;
  b->attributeCount = kept.attributeCount;
  b->attributeCapacity = kept.attributeCapacity;
  b->bytes = kept.bytes;
  b->byteCount = kept.byteCount;
  b->byteCapacity = kept.byteCapacity;
  b->isOutOfMemory = kept.isOutOfMemory;
}

void folio_xml_events_free(folio_xml_events *queue) {
  free(queue->events);
  free(queue->attributes);
  free(queue->bytes);
  queue->events = NULL;
  queue->attributes = NULL;
  queue->bytes = NULL;
}

xmlParserCtxtPtr folio_xml_events_parser(folio_xml_events *queue,
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

int folio_xml_parser_failed(const xmlParserCtxt *parser) {
  return parser->wellFormed == 0 || parser->disableSAX != 0;
}

const char *folio_xml_parser_encoding(const xmlParserCtxt *parser) {
  if (parser->input != NULL && parser->input->buf != NULL &&
      parser->input->buf->encoder != NULL && parser->input->buf->encoder->name != NULL)
    return parser->input->buf->encoder->name;
  return parser->encoding != NULL ? (const char *)parser->encoding : NULL;
}

int folio_xml_parser_line(const xmlParserCtxt *parser) {
  return parser->input != NULL ? parser->input->line : 0;
}
