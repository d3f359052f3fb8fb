import CLibXML2
import FolioModel
import FolioStores
import FolioXMLStore
import Foundation

// The XML store benchmark: save and load an Expenses graph (Person name; Spending
// content, amount, date, person; one person per ten spendings) as records, beside, in the same
// run, the floors a libxml2-based store cannot beat: a bare `xmlTextReader` walk of the same
// file (every node read, every attribute value and text touched) and a bare `xmlTextWriter`
// writing the same objects with its element, attribute and string calls, from values formatted
// beforehand. Targets: load ≤ 1.2× the walk, save ≤ 1.0× the bare writer.

/// `objects` records: every eleventh a person, the others its spendings.
private func xmlExpensesRecords(objects: Int) -> [StoreRecord] {
  var records: [StoreRecord] = []
  records.reserveCapacity(objects)
  var person: Int64 = 0
  var spendings: [Int64] = []
  func closePerson() {
    guard person > 0 else { return }
    records[Int(person - 1)].relationships["spendings"] = spendings.isEmpty ? nil : spendings
  }
  for index in 0..<objects {
    let id = Int64(index + 1)
    if index % 11 == 0 {
      closePerson()
      person = id
      spendings = []
      records.append(
        StoreRecord(entityName: "Person", id: id, attributes: ["name": .string("Person \(index)")]))
    } else {
      spendings.append(id)
      records.append(
        StoreRecord(
          entityName: "Spending", id: id,
          attributes: [
            "content": .string("Lunch & coffee #\(index)"),
            "amount": .double(Double(index % 1000) / 4),
            "date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 61.5)),
          ],
          relationships: ["person": [person]]))
    }
  }
  closePerson()
  return records
}

/// Reads every node of `path` with a bare `xmlTextReader`, touching each name, attribute value
/// and text; returns the number of nodes.
private func readerWalk(_ path: String) -> Int {
  let options = Int32(
    XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
      | XML_PARSE_HUGE.rawValue)
  guard let reader = xmlReaderForFile(path, nil, options) else { return 0 }
  defer { xmlFreeTextReader(reader) }
  var nodes = 0
  var bytes = 0
  while xmlTextReaderRead(reader) == 1 {
    nodes += 1
    if let name = xmlTextReaderConstLocalName(reader) { bytes &+= Int(name.pointee) }
    if xmlTextReaderHasValue(reader) == 1, let value = xmlTextReaderConstValue(reader) {
      bytes &+= Int(value.pointee)
    }
    while xmlTextReaderMoveToNextAttribute(reader) == 1 {
      if let value = xmlTextReaderConstValue(reader) { bytes &+= Int(value.pointee) }
    }
  }
  return nodes + (bytes & 0)
}

/// One object's text, formatted before the bare writer's clock starts.
private struct PreparedObject {
  var type: String
  var id: String
  var attributes: [(name: String, type: String, value: String)]
  var relationships: [(name: String, type: String, destination: String, idrefs: String?)]
}

private func prepare(_ records: [StoreRecord]) -> [PreparedObject] {
  records.map { record in
    var attributes: [(String, String, String)] = []
    var relationships: [(String, String, String, String?)] = []
    if record.entityName == "Person" {
      if case .string(let name) = record.attributes["name"] {
        attributes.append(("name", "string", name))
      }
      let ids = (record.relationships["spendings"] ?? []).map { "z\($0)" }.joined(separator: " ")
      relationships.append(("spendings", "0/0", "SPENDING", ids.isEmpty ? nil : ids))
    } else {
      if case .string(let content) = record.attributes["content"] {
        attributes.append(("content", "string", content))
      }
      if case .double(let amount) = record.attributes["amount"] {
        attributes.append(("amount", "double", amount.description))
      }
      if case .date(let date) = record.attributes["date"] {
        attributes.append(
          ("date", "date", String(format: "%.20f", date.timeIntervalSinceReferenceDate)))
      }
      let ids = (record.relationships["person"] ?? []).map { "z\($0)" }.joined(separator: " ")
      relationships.append(("person", "1/1", "PERSON", ids.isEmpty ? nil : ids))
    }
    return PreparedObject(
      type: record.entityName.uppercased(), id: "z\(record.id)", attributes: attributes,
      relationships: relationships)
  }
}

/// Writes `objects` to `path` with a bare `xmlTextWriter`, as the store lays them out.
private func bareWrite(_ objects: [PreparedObject], to path: String) -> Bool {
  guard let writer = xmlNewTextWriterFilename(path, 0) else { return false }
  defer { xmlFreeTextWriter(writer) }
  var status: Int32 = 0
  status |= xmlTextWriterStartDocument(writer, "1.0", nil, nil)
  status |= xmlTextWriterWriteDTD(
    writer, "database", nil, "file:///System/Library/DTDs/CoreData.dtd", nil)
  status |= xmlTextWriterWriteRaw(writer, "\n\n")
  status |= xmlTextWriterStartElement(writer, "database")
  for object in objects {
    status |= xmlTextWriterWriteRaw(writer, "\n    ")
    status |= xmlTextWriterStartElement(writer, "object")
    status |= xmlTextWriterWriteAttribute(writer, "type", object.type)
    status |= xmlTextWriterWriteAttribute(writer, "id", object.id)
    for attribute in object.attributes {
      status |= xmlTextWriterWriteRaw(writer, "\n        ")
      status |= xmlTextWriterStartElement(writer, "attribute")
      status |= xmlTextWriterWriteAttribute(writer, "name", attribute.name)
      status |= xmlTextWriterWriteAttribute(writer, "type", attribute.type)
      status |= xmlTextWriterWriteString(writer, attribute.value)
      status |= xmlTextWriterEndElement(writer)
    }
    for relationship in object.relationships {
      status |= xmlTextWriterWriteRaw(writer, "\n        ")
      status |= xmlTextWriterStartElement(writer, "relationship")
      status |= xmlTextWriterWriteAttribute(writer, "name", relationship.name)
      status |= xmlTextWriterWriteAttribute(writer, "type", relationship.type)
      status |= xmlTextWriterWriteAttribute(writer, "destination", relationship.destination)
      if let idrefs = relationship.idrefs {
        status |= xmlTextWriterWriteAttribute(writer, "idrefs", idrefs)
      }
      status |= xmlTextWriterFullEndElement(writer)
    }
    status |= xmlTextWriterWriteRaw(writer, "\n    ")
    status |= xmlTextWriterEndElement(writer)
  }
  status |= xmlTextWriterWriteRaw(writer, "\n")
  status |= xmlTextWriterEndElement(writer)
  status |= xmlTextWriterEndDocument(writer)
  return status >= 0
}

/// XML store save and load of `objects` Expenses records, beside the bare libxml2 floors.
func xmlStoreBenchmark(objects: Int) throws -> [Case] {
  let model = try expensesModel()
  let records = xmlExpensesRecords(objects: objects)
  let contents = StoreContents(metadata: StoreMetadata(storeType: "XML"), records: records)
  let store = XMLStore()
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "folio-xml-bench-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let url = folder.appendingPathComponent("expenses.xml")
  let bareURL = folder.appendingPathComponent("bare.xml")
  let runs = storeBenchmarkRuns(objects: objects)

  // Each target's two sides are measured in turn (bestMilliseconds(runs:_:beside:settle:)).
  // The bare writer does not flush its file, and a save's fsync would write its dirty pages
  // too (ext4 commits them with the save's own), so everything written is flushed, untimed,
  // before each run.
  let prepared = prepare(records)
  var written = false
  let (save, bare) = try bestMilliseconds(
    runs: runs, { try store.write(contents, model: model, to: url) },
    beside: { written = bareWrite(prepared, to: bareURL.path) }, settle: { sync() })
  guard written else { throw BenchmarkFailure("the bare xmlTextWriter failed") }
  var loaded: [StoreContents] = []
  var nodes = 0
  let (load, walk) = try bestMilliseconds(
    runs: runs, { loaded.append(try store.read(from: url, model: model)) },
    beside: { nodes = readerWalk(url.path) })
  guard loaded.allSatisfy({ $0.records == records }) else {
    throw BenchmarkFailure("the XML store did not load back the \(objects) records it saved")
  }
  guard nodes > objects else { throw BenchmarkFailure("the reader walk read \(nodes) nodes") }
  let size = Double(
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
  return [
    Case(title: "file size", value: size / 1_048_576, unit: "MB"),
    Case(title: "XML save", value: save, unit: "ms"),
    Case(title: "bare xmlTextWriter, same objects", value: bare, unit: "ms"),
    Case(title: "save ÷ bare writer", value: save / bare, unit: "×", limit: 1.0),
    Case(title: "XML load", value: load, unit: "ms"),
    Case(title: "bare xmlTextReader walk", value: walk, unit: "ms"),
    Case(title: "load ÷ reader walk", value: load / walk, unit: "×", limit: 1.2),
  ]
}
