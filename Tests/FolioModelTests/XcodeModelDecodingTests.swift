import Foundation
import Testing

@testable import FolioModel

/// What libxml2 reports as it reads a model file becomes one error naming the place, and
/// nothing of its own reaches standard error.
@Suite("Reading Xcode model files that do not decode or end early")
struct XcodeModelDecodingTests {
  @Test("bytes the declared encoding cannot decode, and a file cut short, are named as such")
  func undecodableOrCutShort() throws {
    let undecodable =
      Data("<?xml version=\"1.0\" encoding=\"EUC-JP\"?>\n<model>".utf8) + Data([0xFF, 0xFE])
      + Data("</model>".utf8)
    let error = try #require(
      modelError { _ = try ManagedObjectModel(xcodeModelData: undecodable, path: "m") })
    #expect(error.code == .malformedXML)
    #expect(
      error.description.hasPrefix(
        "m:2: malformed XML: the file is not valid EUC-JP, the encoding it declares (input conversion failed"
      ), "\(error)")
    for (cut, expected) in [
      (
        "<model>\n<!-- no end",
        "m:2:12: malformed XML: the file ends before the model does (Comment not terminated)"
      ),
      (
        "<model>\n<entity name=\"A\">\n",
        "m:3:1: malformed XML: the file ends before the model does (Premature end of data in tag entity line 2)"
      ),
    ] {
      let short = try #require(
        modelError { _ = try ManagedObjectModel(xcodeModelData: Data(cut.utf8), path: "m") })
      #expect(short.description == expected)
    }
  }
}
