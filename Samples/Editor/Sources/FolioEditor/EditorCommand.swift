import ArgumentParser
import EditorCore
import Foundation
import Hummingbird

/// `folio-editor STORE --model MODEL`: serves the editor for one document.
@main
struct EditorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "folio-editor",
    abstract: "Edit a Folio document in a web browser, one context per tab.",
    discussion: """
      Opens the store (XML, binary or SQLite) with the model and serves the editor at \
      http://HOST:PORT/. Each browser tab edits in its own context; Save writes the file.
      """)

  @Argument(help: "The document: a store file, which Save overwrites.")
  var store: String

  @Option(help: "The model: an .xcdatamodeld bundle or an .xcdatamodel folder.")
  var model: String

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on.")
  var port = 8080

  func run() async throws {
    let hub = try DocumentHub(
      storeAt: URL(fileURLWithPath: store), modelAt: URL(fileURLWithPath: model))
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
