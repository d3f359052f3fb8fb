// The Company sample in Category/Extension mode: the FolioCodegenPlugin build-tool plugin
// generates `Department` and `Employee`'s properties from Company.xcdatamodeld; `Employee` is
// written by hand (Employee.swift) with logic of its own. `make test` runs it; it exits 1 if
// anything is off.
import Folio
import Foundation

/// Stops with a message when `condition` does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  guard !condition else { return }
  FileHandle.standardError.write(Data("CompanySample: \(message())\n".utf8))
  exit(1)
}

let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
var model = try ManagedObjectModel(
  contentsOf: folder.appendingPathComponent("Company.xcdatamodeld"))
try model.register(CompanyEntities.classes)

// Each step below stands for one user event: the loop's turn ends after it, so each is one
// undo step, as in an app's run loop.
let loop = ManualEventLoop()
let document = try Document(model: model, eventLoop: loop)
let context = document.context
let research = Department(context: context)
research.name = "Research"
var staff: [Employee] = []
for (first, last) in [("Grace", "Hopper"), ("Alan", "Turing"), ("Ada", "Lovelace")] {
  let employee = Employee(context: context)
  employee.firstName = first
  employee.lastName = last
  research.addToEmployees(employee)
  staff.append(employee)
}
let grace = staff[0]
let alan = staff[1]
let ada = staff[2]
check(grace.salary == 30_000 && !grace.hasDrivingLicense, "awakeFromInsert did not run")
alan.manager = grace
ada.manager = grace
check(grace.reports == [alan, ada], "Grace's reports are \(grace.reports.map(\.fullName))")
try context.save()
loop.endTurn()

grace.raise(by: 10)
loop.endTurn()
print("\(grace.fullName) now earns \(grace.salary ?? 0)")
check(grace.salary == 33_000, "the raise gave \(grace.salary ?? 0)")

var request = Employee.fetchRequest()
request.sortDescriptors = [QuerySortDescriptor(\Employee.lastName)]
let byName = try context.fetch(request).map(\.fullName)
print("Employees by last name:", byName)
check(byName == ["Grace Hopper", "Ada Lovelace", "Alan Turing"], "sorted \(byName)")

// The class's own rule is reported with the model's, and the save changes nothing.
grace.manager = grace
loop.endTurn()
do {
  try context.save()
  check(false, "a save with Grace as her own manager succeeded")
} catch {
  print("Refused: \(error)")
  check(error.failures.contains { $0.underlying is StaffError }, "no StaffError in \(error)")
}
try context.undoManager?.undo()
check(grace.manager == nil, "undo left Grace's manager as \(grace.manager?.fullName ?? "none")")
try context.save()
let saved = try context.count(for: Employee.fetchRequest())
print("Saved \(saved) employees")
check(saved == 3, "saved \(saved) employees")
