import Foundation
import Testing

@testable import FolioScript

/// Inputs that fuzzing (`make fuzz`, RELIABILITY.md) found, minimised, in `Fixtures/fuzz/`.
@Suite("Fuzz findings: undo scripts")
struct FuzzRegressionTests {
  static func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/fuzz/\(name)").path
  }

  @Test("10,000 opening brackets are refused at the 33rd, not by a stack overflow")
  func deepList() throws {
    let path = Self.fixture("undo-script-deep-list.undo")
    let error = try #require(throws: ScriptError.self) { try Script(contentsOfFile: path) }
    #expect(error.code == .syntax)
    #expect(error.description == "\(path):1:46: lists nest more than 32 levels deep")
  }

  @Test("lists nested 32 deep parse")
  func deepestAllowedList() throws {
    let list = String(repeating: "[", count: 32) + "1" + String(repeating: "]", count: 32)
    let script = try Script(parsing: "set $a.b = \(list)", file: "t.undo")
    #expect(script.commands.count == 1)
  }
}
