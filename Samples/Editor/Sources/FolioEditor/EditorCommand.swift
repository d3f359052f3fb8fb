import ArgumentParser
import EditorCore
import Foundation
import Hummingbird

/// `folio-editor STORE --model MODEL`: serves the editor for one document, a file or a
/// PostgreSQL document. Several servers may serve one document: each takes in the others'
/// saves and shows them in its tabs.
@main
struct EditorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "folio-editor",
    abstract: "Edit a Folio document in a web browser, one context per tab.",
    discussion: """
      Opens the store (XML, binary or SQLite file, or a PostgreSQL document) with the model \
      and serves the editor at http://HOST:PORT/. Each browser tab edits in its own context; \
      Save writes the document. Saves that other processes make to the document reach every \
      tab live.
      """)

  @Argument(
    help: """
      The document: a store file, which Save overwrites, or a PostgreSQL document's URL, \
      postgresql://USER@HOST:PORT/DATABASE?schema=NAME.
      """)
  var store: String

  @Option(help: "The model: an .xcdatamodeld bundle or an .xcdatamodel folder.")
  var model: String

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on.")
  var port = 8080

  @Option(help: "How often to look for other processes' saves, in milliseconds.")
  var watchInterval = 200

  func validate() throws {
    do {
      _ = try DocumentHub.storeURL(store)
    } catch {
      throw ValidationError(error.message)
    }
    guard watchInterval > 0 else { throw ValidationError("--watch-interval must be positive") }
  }

  func run() async throws {
    let hub = try DocumentHub(
      storeAt: try DocumentHub.storeURL(store), modelAt: URL(fileURLWithPath: model))
    await hub.watchForOtherWriters(every: .milliseconds(watchInterval))
    let application = Application(
      router: EditorRoutes(hub: hub).router(),
      configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
      onServerRunning: { _ in
        // Written at once, not buffered, so a script reading the output sees it.
        FileHandle.standardOutput.write(
          Data("Folio editor on \(store): http://\(host):\(port)/\n".utf8))
      })
    try await application.runService()
  }
}
