import Foundation
import Testing

@testable import FolioModel

@Suite("SHA-256")
struct SHA256Tests {
  @Test(
    "matches the FIPS 180-4 test vectors",
    arguments: [
      ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
      ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
      (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ),
      (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
      ),
    ])
  func fipsVectors(message: String, digest: String) {
    #expect(SHA256.hash(Array(message.utf8)).hexString == digest)
  }

  @Test("hashes a message fed in pieces as one")
  func incremental() {
    let message = Array(String(repeating: "folio", count: 40).utf8)
    var hasher = SHA256()
    hasher.update(message[..<63])
    hasher.update(message[63...])
    #expect(hasher.finalize() == SHA256.hash(message))
  }
}
