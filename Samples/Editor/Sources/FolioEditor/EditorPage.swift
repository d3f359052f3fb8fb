import Foundation

/// The editor's one page: plain HTML and JavaScript, read from the target's resources.
enum EditorPage {
  static let html: String = {
    guard let url = Bundle.module.url(forResource: "index", withExtension: "html"),
      let text = try? String(contentsOf: url, encoding: .utf8)
    else {
      preconditionFailure("the editor page index.html is missing from the target's resources")
    }
    return text
  }()
}
