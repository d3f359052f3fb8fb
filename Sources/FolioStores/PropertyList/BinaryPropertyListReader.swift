import FolioModel
import Foundation

/// Decodes one binary property list; `BinaryPropertyList.swift` describes the format and why
/// the reader works as it does.
///
/// The trailer and header are checked when the reader is made. Objects are then decoded from
/// the top object down with an explicit stack of open containers: a container is built once
/// every object it refers to is decoded, each object is decoded once however often it is
/// referred to, and a reference to a container still open on the stack is a cycle.
struct BinaryPropertyListReader {
  let bytes: [UInt8]
  let file: String?
  private let offsetSize: Int
  private let referenceSize: Int
  private let objectCount: Int
  private let topObject: Int
  /// Where the offset table starts, which is where the object area ends.
  let tableOffset: Int
  private let expansionLimit: Int
  /// Each object decoded so far, by number, with the nodes it expands to.
  private var decoded: [Int: (node: PropertyListNode, size: Int)] = [:]

  private static let headerLength = 8
  private static let trailerLength = 32

  /// A reader of `bytes`, whose header and trailer it checks.
  ///
  /// - Throws: `StoreError.malformedStore` at the bad header or trailer field.
  init(bytes: [UInt8], file: String?) throws(StoreError) {
    self.bytes = bytes
    self.file = file
    guard bytes.count >= Self.headerLength + Self.trailerLength else {
      throw BinaryPropertyList.malformed(
        "its \(bytes.count) bytes are too few for the 8-byte header and the 32-byte trailer",
        file: file, offset: bytes.count)
    }
    guard bytes.starts(with: Array("bplist".utf8)) else {
      let found = bytes.prefix(8).map { Self.hex($0) }.joined(separator: " ")
      throw BinaryPropertyList.malformed(
        "the bytes start \(found), not \"bplist00\"", file: file, offset: 0)
    }
    guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
      throw BinaryPropertyList.malformed(
        "the header has version bytes \(Self.hex(bytes[6])) \(Self.hex(bytes[7])); only \"00\" is read",
        file: file, offset: 6)
    }
    let trailer = bytes.count - Self.trailerLength
    offsetSize = Int(bytes[trailer + 6])
    referenceSize = Int(bytes[trailer + 7])
    guard (1...8).contains(offsetSize) else {
      throw BinaryPropertyList.malformed(
        "the trailer gives offsets \(offsetSize) bytes; they must take 1 to 8",
        file: file, offset: trailer + 6)
    }
    guard (1...8).contains(referenceSize) else {
      throw BinaryPropertyList.malformed(
        "the trailer gives object references \(referenceSize) bytes; they must take 1 to 8",
        file: file, offset: trailer + 7)
    }
    let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
    let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
    let table = Self.unsigned(bytes, at: trailer + 24, size: 8)
    guard table > UInt64(Self.headerLength), table <= UInt64(trailer) else {
      throw BinaryPropertyList.malformed(
        "the offset table is said to start at byte \(table), outside bytes 9 to \(trailer)",
        file: file, offset: trailer + 24)
    }
    tableOffset = Int(table)
    let entries = (trailer - tableOffset) / offsetSize
    guard count >= 1, count <= UInt64(entries) else {
      throw BinaryPropertyList.malformed(
        "the trailer gives \(count) objects, but the offset table has room for \(entries)",
        file: file, offset: trailer + 8)
    }
    objectCount = Int(count)
    guard top < count else {
      throw BinaryPropertyList.malformed(
        "the top object is number \(top), past the last object, number \(count - 1)",
        file: file, offset: trailer + 16)
    }
    topObject = Int(top)
    expansionLimit = BinaryPropertyList.maximumExpandedNodes(byteCount: bytes.count)
  }

  /// The property list's top object, with everything it contains.
  mutating func decodeTopObject() throws(StoreError) -> PropertyListNode {
    try decodeObject(topObject)
  }

  // MARK: Containers

  private enum ContainerKind {
    case array, set, dictionary

    var name: String {
      switch self {
      case .array: "an array"
      case .set: "a set"
      case .dictionary: "a dictionary"
      }
    }
  }

  /// A container being decoded: where its references are, and how far the walk has got.
  private struct Container {
    var number: Int
    var offset: Int
    var kind: ContainerKind
    /// References to read: the count, or for a dictionary twice the count (keys, values).
    var referenceCount: Int
    var referencesStart: Int
    var next = 0
    /// The nodes the container expands to so far, itself included.
    var size = 1
  }

  /// What an object turned out to be: a finished leaf, or a container to walk.
  private enum Start {
    case leaf(PropertyListNode)
    case container(Container)
  }

  private mutating func decodeObject(_ number: Int) throws(StoreError) -> PropertyListNode {
    if let known = decoded[number] { return known.node }
    var stack: [Container] = []
    var open: Set<Int> = []
    switch try start(number) {
    case .leaf(let node):
      decoded[number] = (node, 1)
      return node
    case .container(let container):
      stack.append(container)
      open.insert(number)
    }
    while let current = stack.last {
      guard current.next == current.referenceCount else {
        let reference = try checkedReference(
          at: current.referencesStart + current.next * referenceSize, in: current)
        stack[stack.count - 1].next += 1
        guard !open.contains(reference) else {
          throw malformed(
            "object \(current.number) (\(current.kind.name)) refers to object \(reference),"
              + " which contains it: the containers form a cycle", at: current.offset)
        }
        if let known = decoded[reference] {
          try grow(&stack, by: known.size)
          continue
        }
        switch try start(reference) {
        case .leaf(let node):
          decoded[reference] = (node, 1)
          try grow(&stack, by: 1)
        case .container(let inner):
          guard stack.count < BinaryPropertyList.maximumNestingLevels else {
            throw StoreError(
              .limitExceeded,
              "binary property list: object \(reference) (\(inner.kind.name)) is nested more"
                + " than \(BinaryPropertyList.maximumNestingLevels) containers deep",
              at: InputLocation(file: file, byteOffset: inner.offset))
          }
          stack.append(inner)
          open.insert(reference)
        }
        continue
      }
      stack.removeLast()
      open.remove(current.number)
      decoded[current.number] = (try build(current), current.size)
      if !stack.isEmpty { try grow(&stack, by: current.size) }
    }
    guard let node = decoded[number]?.node else {
      preconditionFailure("binary property list object \(number) not decoded after its walk")
    }
    return node
  }

  /// Adds `size` nodes to the innermost open container, checking the expansion limit.
  private func grow(_ stack: inout [Container], by size: Int) throws(StoreError) {
    let last = stack.count - 1
    stack[last].size += size
    guard stack[last].size <= expansionLimit else {
      throw StoreError(
        .limitExceeded,
        "binary property list: object \(stack[last].number) expands to more than"
          + " \(expansionLimit) nodes through shared references",
        at: InputLocation(file: file, byteOffset: stack[last].offset))
    }
  }

  /// The object number at `position`, checked against the object count.
  private func checkedReference(at position: Int, in container: Container) throws(StoreError)
    -> Int
  {
    let reference = Self.unsigned(bytes, at: position, size: referenceSize)
    guard reference < UInt64(objectCount) else {
      throw malformed(
        "object \(container.number) (\(container.kind.name)) refers to object \(reference),"
          + " past the last object, number \(objectCount - 1)", at: container.offset)
    }
    return Int(reference)
  }

  /// The container's node, once every object it refers to is decoded.
  private func build(_ container: Container) throws(StoreError) -> PropertyListNode {
    var children: [PropertyListNode] = []
    children.reserveCapacity(container.referenceCount)
    for index in 0..<container.referenceCount {
      let position = container.referencesStart + index * referenceSize
      let reference = Int(Self.unsigned(bytes, at: position, size: referenceSize))
      guard let child = decoded[reference]?.node else {
        preconditionFailure("binary property list object \(reference) read before its container")
      }
      children.append(child)
    }
    switch container.kind {
    case .array:
      return .array(children)
    case .set:
      return .set(children)
    case .dictionary:
      let count = container.referenceCount / 2
      var entries: [String: PropertyListNode] = [:]
      entries.reserveCapacity(count)
      for index in 0..<count {
        guard case .string(let key) = children[index] else {
          throw malformed(
            "object \(container.number) (a dictionary) has key \(index + 1) of another type"
              + " than string", at: container.offset)
        }
        entries[key] = children[count + index]
      }
      return .dictionary(entries)
    }
  }

  // MARK: Objects

  /// Where object `number` starts, checked to lie in the object area.
  private func offset(ofObject number: Int) throws(StoreError) -> Int {
    let entry = tableOffset + number * offsetSize
    let offset = Self.unsigned(bytes, at: entry, size: offsetSize)
    guard offset >= UInt64(Self.headerLength), offset < UInt64(tableOffset) else {
      throw malformed(
        "object \(number) is said to start at byte \(offset), outside the objects (bytes 8 to"
          + " \(tableOffset - 1))", at: entry)
    }
    return Int(offset)
  }

  /// Object `number` decoded if it is a leaf, or its container checked and ready to walk.
  private func start(_ number: Int) throws(StoreError) -> Start {
    let offset = try offset(ofObject: number)
    let marker = bytes[offset]
    let kind: ContainerKind
    switch marker >> 4 {
    case 0xA: kind = .array
    case 0xC: kind = .set
    case 0xD: kind = .dictionary
    default: return .leaf(try leaf(number, at: offset, marker: marker))
    }
    let (count, contentStart) = try count(of: number, at: offset, marker: marker)
    let entrySize = kind == .dictionary ? 2 * referenceSize : referenceSize
    guard count <= (tableOffset - contentStart) / entrySize else {
      throw malformed(
        "object \(number) is \(kind.name) of \(count) entries, which runs past the objects",
        at: offset)
    }
    return .container(
      Container(
        number: number, offset: offset, kind: kind,
        referenceCount: kind == .dictionary ? 2 * count : count, referencesStart: contentStart))
  }
}
