// The Expenses sample in Class Definition mode: the FolioCodegenPlugin build-tool plugin
// generates `Person` and `Spending` from Expenses.xcdatamodeld at build time, and this code
// uses them as a Core Data app does. `make test` runs it; it exits 1 if anything is off.
import Folio
import Foundation

/// Stops with a message when `condition` does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  guard !condition else { return }
  FileHandle.standardError.write(Data("ExpensesSample: \(message())\n".utf8))
  exit(1)
}

let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
var model = try ManagedObjectModel(
  contentsOf: folder.appendingPathComponent("Expenses.xcdatamodeld"))
try model.register(ExpensesEntities.classes)

let document = try Document(model: model)
let context = document.context
let ada = Person(context: context)
ada.name = "Ada"
for (content, amount) in [("Lunch", 12.5), ("Books", 30.0), ("Train", 8.25)] {
  let spending = Spending(context: context)
  spending.content = content
  spending.amount = amount
  spending.date = Date(timeIntervalSinceReferenceDate: 0)
  ada.addToSpendings(spending)
}
check(ada.spendings.count == 3, "Ada has \(ada.spendings.count) spendings")

var request = Spending.fetchRequest()
request.predicate = .key(\Spending.amount) > 10
request.sortDescriptors = [QuerySortDescriptor(\Spending.amount, ascending: false)]
let large = try context.fetch(request)
print("Spendings over 10, largest first:", large.map { $0.content ?? "?" })
check(large.map(\.content) == ["Books", "Lunch"], "the fetch found \(large.map(\.content))")

let file = FileManager.default.temporaryDirectory
  .appendingPathComponent("ExpensesSample-\(UUID().uuidString).folio")
defer { try? FileManager.default.removeItem(at: file) }
try document.save(to: file, format: BinaryStore())

// Reopened, the objects come back as the generated classes.
let reopened = try Document.open(file, model: model, formats: [BinaryStore(), XMLStore()])
let people = try reopened.context.fetch(Person.fetchRequest())
let total = people.first?.spendings.reduce(0) { $0 + $1.amount } ?? 0
print("Reopened: \(people.map { $0.name ?? "?" }), total \(total)")
check(people.map(\.name) == ["Ada"] && total == 50.75, "reopened \(people.map(\.name)), \(total)")
