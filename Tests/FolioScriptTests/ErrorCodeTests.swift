import Folio
import Testing

@testable import FolioScript

/// The names `expect error` accepts are the script language's (`Formats/undo-script.md`,
/// section 13): they do not change when Folio's error codes do.
@Suite("Script error codes")
struct ErrorCodeTests {
  @Test("the names `expect error` accepts, in the order a suggestion considers them")
  func knownNames() {
    #expect(
      ScriptError.knownNames == [
        "syntax", "io", "model", "no-model", "no-document", "unknown-variable",
        "expectation-failed", "unknown-entity", "unknown-key", "type-mismatch", "abstract-entity",
        "not-registered", "object-not-found", "read-only", "validation", "deny",
        "invalid-key-path", "store", "invalid-predicate", "merge-conflict", "invalid-class",
        "invalid-fetch-request", "model-mismatch", "open-group",
        "no-open-group", "enable-without-disable", "context-exists", "empty-pasteboard", "required",
        "minimum-value",
        "maximum-value", "minimum-length", "maximum-length", "pattern", "minimum-count",
        "maximum-count", "uniqueness", "custom", "open-group", "no-open-group",
        "enable-without-disable",
      ])
  }

  @Test("a code is the code its name reads back as, and prints its member's name")
  func namesReadBack() {
    for code in ScriptError.Code.allCases {
      #expect(ScriptError.Code(rawValue: code.rawValue) == code)
    }
    #expect(ScriptError.Code(rawValue: "noModel") == nil)
    #expect(ScriptError.Code.noModel.rawValue == "no-model")
    #expect(ScriptError.Code.noModel.description == "noModel")
  }

  @Test("every object-graph code has the script code of its name")
  func graphCodes() {
    for code in GraphError.Code.allCases {
      #expect(ScriptError.Code(code).description == code.description)
    }
  }

  @Test("every undo-manager code has the script code of its name")
  func undoCodes() {
    for code in UndoError.Code.allCases {
      #expect(ScriptError.Code(code).rawValue == code.rawValue)
      #expect(ScriptError.Code(code).description == code.description)
    }
  }
}
