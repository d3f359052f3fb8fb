import EditorCore
import Foundation
import Hummingbird

/// The editor's HTTP interface: the page, a JSON API over the ``DocumentHub``, and each tab's
/// live channel as server-sent events.
///
/// | route | does |
/// |---|---|
/// | `GET /` | the editor page |
/// | `GET /api/model` | entities, attributes, relationships, the file and the merge policy |
/// | `POST /api/tabs` | opens a tab: a context of its own |
/// | `POST /api/tabs/:tab/close` | closes it |
/// | `GET /api/tabs/:tab/table/:entity` | the entity's rows |
/// | `POST /api/tabs/:tab/edit` | `{"id", "key", "value"}`: sets an attribute |
/// | `POST /api/tabs/:tab/insert` | `{"entity"}`: inserts an object |
/// | `POST /api/tabs/:tab/delete` | `{"id"}`: deletes an object |
/// | `POST /api/tabs/:tab/copy` | `{"ids"}`: puts the objects on the server's clipboard |
/// | `POST /api/tabs/:tab/paste` | pastes the clipboard into the tab |
/// | `POST /api/tabs/:tab/duplicate` | `{"ids"}`: copies and pastes the objects in place |
/// | `GET /api/clipboard`, `PUT /api/clipboard` | the clipboard as pasteboard JSON |
/// | `POST /api/tabs/:tab/undo`, `/redo`, `/save` | the tab's undo, redo and save |
/// | `GET /api/tabs/:tab/events` | the tab's live channel |
///
/// Every refusal is a 4xx answer `{"error": {"code", "message", "place"}}`.
struct EditorRoutes: Sendable {
  let hub: DocumentHub

  struct EditRequest: Decodable {
    var id: String
    var key: String
    var value: JSONValue
  }

  struct InsertRequest: Decodable {
    var entity: String
  }

  struct DeleteRequest: Decodable {
    var id: String
  }

  struct RowsRequest: Decodable {
    var ids: [String]
  }

  func router() -> Router<BasicRequestContext> {
    let router = Router()
    let hub = hub
    router.get("/") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: EditorPage.html)))
    }
    router.get("/api/model") { _, _ in json(hub.modelPayload) }
    router.post("/api/tabs") { _, _ in
      await answer(status: .created) { () throws(EditorError) in try await hub.openTab() }
    }
    router.post("/api/tabs/:tab/close") { _, context in
      await answer { () throws(EditorError) in
        try await hub.closeTab(try tab(context))
        return ["closed": true]
      }
    }
    router.get("/api/tabs/:tab/table/:entity") { _, context in
      await answer { () throws(EditorError) in
        try await hub.table(context.parameters.get("entity") ?? "", tab: try tab(context))
      }
    }
    router.post("/api/tabs/:tab/edit") { request, context in
      await answer { () throws(EditorError) in
        let edit = try await body(EditRequest.self, of: request)
        return try await hub.edit(
          object: edit.id, key: edit.key, value: edit.value, tab: try tab(context))
      }
    }
    router.post("/api/tabs/:tab/insert") { request, context in
      await answer { () throws(EditorError) in
        let insert = try await body(InsertRequest.self, of: request)
        return try await hub.insert(insert.entity, tab: try tab(context))
      }
    }
    router.post("/api/tabs/:tab/delete") { request, context in
      await answer { () throws(EditorError) in
        let delete = try await body(DeleteRequest.self, of: request)
        return try await hub.delete(object: delete.id, tab: try tab(context))
      }
    }
    router.post("/api/tabs/:tab/copy") { request, context in
      await answer { () throws(EditorError) in
        let copy = try await body(RowsRequest.self, of: request)
        return try await hub.copy(objects: copy.ids, tab: try tab(context))
      }
    }
    router.post("/api/tabs/:tab/paste") { _, context in
      await answer { () throws(EditorError) in try await hub.paste(tab: try tab(context)) }
    }
    router.post("/api/tabs/:tab/duplicate") { request, context in
      await answer { () throws(EditorError) in
        let duplicate = try await body(RowsRequest.self, of: request)
        return try await hub.duplicate(objects: duplicate.ids, tab: try tab(context))
      }
    }
    router.get("/api/clipboard") { _, _ in
      do throws(EditorError) {
        let data = try await hub.clipboardData()
        return Response(
          status: .ok, headers: [.contentType: "application/json"],
          body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
      } catch {
        return failure(error)
      }
    }
    router.put("/api/clipboard") { request, _ in
      await answer { () throws(EditorError) in
        ["clipboard": try await hub.setClipboard(try await rawBody(of: request))]
      }
    }
    router.post("/api/tabs/:tab/undo") { _, context in
      await answer { () throws(EditorError) in try await hub.undo(tab: try tab(context)) }
    }
    router.post("/api/tabs/:tab/redo") { _, context in
      await answer { () throws(EditorError) in try await hub.redo(tab: try tab(context)) }
    }
    router.post("/api/tabs/:tab/save") { _, context in
      await answer { () throws(EditorError) in try await hub.save(tab: try tab(context)) }
    }
    router.get("/api/tabs/:tab/events") { _, context in
      let events: AsyncStream<LiveEvent>
      do throws(EditorError) {
        events = try await hub.liveEvents(tab: try tab(context))
      } catch {
        return failure(error)
      }
      return Response(
        status: .ok,
        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
        body: ResponseBody { writer in
          // A comment first, so the browser sees the channel open at once.
          try await writer.write(ByteBuffer(string: ": live\n\n"))
          let encoder = JSONEncoder()
          encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
          for await event in events {
            let data = try encoder.encode(event)
            try await writer.write(
              ByteBuffer(string: "data: \(String(decoding: data, as: UTF8.self))\n\n"))
          }
          try await writer.finish(nil)
        })
    }
    return router
  }
}

/// The tab a request names.
private func tab(_ context: BasicRequestContext) throws(EditorError) -> String {
  guard let tab = context.parameters.get("tab") else {
    throw EditorError(status: 400, code: "badRequest", "the request names no tab", place: "tab")
  }
  return tab
}

/// The request's JSON body, as `type`.
///
/// - Throws: `EditorError` (`malformedJSON`) naming the body, or the field that was wrong.
private func body<T: Decodable>(_ type: T.Type, of request: Request) async throws(EditorError)
  -> T
{
  let buffer: ByteBuffer
  do {
    var request = request
    buffer = try await request.collectBody(upTo: 1 << 20)
  } catch {
    throw EditorError(
      status: 413, code: "bodyTooLarge", "the request body is over 1 MiB", place: "body")
  }
  do {
    return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
  } catch let DecodingError.keyNotFound(key, _) {
    throw EditorError(
      status: 400, code: "malformedJSON", "the body has no \"\(key.stringValue)\"",
      place: "body")
  } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
    let field = context.codingPath.map(\.stringValue).joined(separator: ".")
    throw EditorError(
      status: 400, code: "malformedJSON", "\"\(field)\" has the wrong type",
      place: field.isEmpty ? "body" : "body.\(field)")
  } catch {
    throw EditorError(
      status: 400, code: "malformedJSON", "the body is not a JSON object", place: "body")
  }
}

/// The request's body as it came, up to 16 MiB: a pasteboard of many objects is large.
private func rawBody(of request: Request) async throws(EditorError) -> Data {
  do {
    var request = request
    return Data(try await request.collectBody(upTo: 16 << 20).readableBytesView)
  } catch {
    throw EditorError(
      status: 413, code: "bodyTooLarge", "the request body is over 16 MiB", place: "body")
  }
}

/// The answer of `work`: its value as JSON with `status`, or its error.
private func answer<T: Encodable>(
  status: HTTPResponse.Status = .ok, _ work: () async throws(EditorError) -> T
) async -> Response {
  do {
    return json(try await work(), status: status)
  } catch {
    return failure(error)
  }
}

/// `{"error": {…}}` with the error's status.
private func failure(_ error: EditorError) -> Response {
  struct Failure: Encodable {
    struct Detail: Encodable {
      var code: String
      var message: String
      var place: String?
    }
    var error: Detail
  }
  return json(
    Failure(error: .init(code: error.code, message: error.message, place: error.place)),
    status: HTTPResponse.Status(code: error.status))
}

/// `value` as a JSON response.
private func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  guard let data = try? encoder.encode(value) else {
    preconditionFailure("an API payload of \(T.self) did not encode as JSON")
  }
  return Response(
    status: status, headers: [.contentType: "application/json"],
    body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}
