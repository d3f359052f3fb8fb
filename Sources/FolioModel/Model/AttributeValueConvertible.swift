import Foundation

/// A Swift type an attribute's value can be read and written as through an entity class's
/// typed properties.
///
/// Folio's value types conform: the integer widths, `Float`, `Double`, `Bool`, `String`,
/// `Date`, `Data`, `UUID`, `URL`, `Decimal`, and `Optional` of each. A non-optional number or
/// `Bool` reads an empty attribute as zero or `false`, as Core Data's scalar accessors do; a
/// non-optional `String`, `Date`… cannot read an empty attribute (declare it optional).
///
/// Your own types conform by converting to one of those; an enumeration whose raw type
/// conforms needs nothing more than the declaration:
///
/// ```swift
/// enum Status: Int16, AttributeValueConvertible { case draft, published }
/// ```
public protocol AttributeValueConvertible {
  /// The value that `attributeValue` (`nil`: an empty attribute) stands for in this type; `nil`
  /// when this type cannot represent it.
  init?(attributeValue: AttributeValue?)
  /// The attribute value this value is stored as; `nil` for an empty attribute.
  var attributeValue: AttributeValue? { get }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard let attributeValue else {
      self = .none
      return
    }
    guard let wrapped = Wrapped(attributeValue: attributeValue) else { return nil }
    self = .some(wrapped)
  }

  public var attributeValue: AttributeValue? { self?.attributeValue }
}

extension AttributeValueConvertible
where Self: RawRepresentable, RawValue: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard let attributeValue, let raw = RawValue(attributeValue: attributeValue) else {
      return nil
    }
    self.init(rawValue: raw)
  }

  public var attributeValue: AttributeValue? { rawValue.attributeValue }
}

extension AttributeValueConvertible where Self: FixedWidthInteger {
  /// An integer attribute's value at this width (an empty attribute reads as 0); `nil` when
  /// the value does not fit.
  public init?(attributeValue: AttributeValue?) {
    switch attributeValue {
    case nil: self = 0
    case .integer(let number)?:
      guard let value = Self(exactly: number) else { return nil }
      self = value
    default: return nil
    }
  }

  public var attributeValue: AttributeValue? {
    Int64(exactly: self).map { .integer($0) }
  }
}

extension Int: AttributeValueConvertible {}
extension Int16: AttributeValueConvertible {}
extension Int32: AttributeValueConvertible {}
extension Int64: AttributeValueConvertible {}

extension Double: AttributeValueConvertible {
  /// A Double or Float attribute's value, or a date's seconds since 2001 (Xcode's scalar type
  /// for a Date attribute is `TimeInterval`); an empty attribute reads as 0.
  public init?(attributeValue: AttributeValue?) {
    switch attributeValue {
    case nil: self = 0
    case .double(let number)?: self = number
    case .float(let number)?: self = Double(number)
    case .date(let date)?: self = date.timeIntervalSinceReferenceDate
    default: return nil
    }
  }

  public var attributeValue: AttributeValue? { .double(self) }
}

extension Float: AttributeValueConvertible {
  /// A Float attribute's value; an empty attribute reads as 0.
  public init?(attributeValue: AttributeValue?) {
    switch attributeValue {
    case nil: self = 0
    case .float(let number)?: self = number
    default: return nil
    }
  }

  public var attributeValue: AttributeValue? { .float(self) }
}

extension Bool: AttributeValueConvertible {
  /// A Boolean attribute's value; an empty attribute reads as `false`.
  public init?(attributeValue: AttributeValue?) {
    switch attributeValue {
    case nil: self = false
    case .boolean(let flag)?: self = flag
    default: return nil
    }
  }

  public var attributeValue: AttributeValue? { .boolean(self) }
}

extension String: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard case .string(let text)? = attributeValue else { return nil }
    self = text
  }

  public var attributeValue: AttributeValue? { .string(self) }
}

extension Date: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard case .date(let date)? = attributeValue else { return nil }
    self = date
  }

  public var attributeValue: AttributeValue? { .date(self) }
}

extension Data: AttributeValueConvertible {
  /// A Binary Data or Transformable attribute's bytes.
  public init?(attributeValue: AttributeValue?) {
    switch attributeValue {
    case .binaryData(let data)?, .transformable(let data)?: self = data
    default: return nil
    }
  }

  public var attributeValue: AttributeValue? { .binaryData(self) }
}

extension UUID: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard case .uuid(let uuid)? = attributeValue else { return nil }
    self = uuid
  }

  public var attributeValue: AttributeValue? { .uuid(self) }
}

extension URL: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard case .uri(let url)? = attributeValue else { return nil }
    self = url
  }

  public var attributeValue: AttributeValue? { .uri(self) }
}

extension Decimal: AttributeValueConvertible {
  public init?(attributeValue: AttributeValue?) {
    guard case .decimal(let number)? = attributeValue else { return nil }
    self = number
  }

  public var attributeValue: AttributeValue? { .decimal(self) }
}

extension AttributeValue {
  /// This value as an attribute of `type` stores it: itself when it fits, or the one
  /// conversion a typed property needs (a `TimeInterval` for a date, a `Double` for a float
  /// attribute, bytes for a transformable one); `nil` when it does not fit.
  package func stored(as type: AttributeType) -> AttributeValue? {
    if fits(type) { return self }
    switch (self, type) {
    case (.double(let number), .date): return .date(Date(timeIntervalSinceReferenceDate: number))
    case (.float(let number), .double): return .double(Double(number))
    case (.binaryData(let data), .transformable): return .transformable(data)
    default: return nil
    }
  }
}

extension AttributeValue: AttributeValueConvertible {
  /// The value itself: the type of an entity class's Object ID and Composite attributes.
  public init?(attributeValue: AttributeValue?) {
    guard let attributeValue else { return nil }
    self = attributeValue
  }

  public var attributeValue: AttributeValue? { self }
}
