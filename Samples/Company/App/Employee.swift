import Folio
import Foundation

/// Why an employee does not validate: the app's own rule, beside the model's.
enum StaffError: Error, CustomStringConvertible {
  case ownManager(String)

  var description: String {
    switch self {
    case .ownManager(let name): "\(name) cannot be their own manager"
    }
  }
}

/// `Employee`'s Codegen is Category/Extension: the plugin generates its properties, and the
/// class, with the app's logic, is written here.
public class Employee: ManagedObject {
  /// New employees start without a driving licence and on the starting salary.
  override public func awakeFromInsert() {
    super.awakeFromInsert()
    hasDrivingLicense = false
    salary = 30_000
  }

  /// `First Last`.
  var fullName: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }

  /// Raises the salary by `percent` percent.
  func raise(by percent: Decimal) {
    salary = (salary ?? 0) * (1 + percent / 100)
  }

  override public func validateForUpdate() throws {
    try super.validateForUpdate()
    if manager === self { throw StaffError.ownManager(fullName) }
  }
}
