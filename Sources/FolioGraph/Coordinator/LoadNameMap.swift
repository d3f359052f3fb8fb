import FolioModel
import FolioStores

/// Where each value of a row with shared names goes in an object of one entity: its slot, and
/// its attribute's type or its relationship's kind.
final class LoadNameMap {
  let names: RecordNames
  let address: UnsafeMutableRawPointer
  let layout: EntityLayout
  let isAttributes: Bool
  let slots: [Int]
  let types: [AttributeType]
  let isToMany: [Bool]
  let isOrdered: [Bool]

  /// The map of `names` in `layout`, for attributes or relationships; `nil` when `layout`
  /// has no such property of one of the names, given in `unknown`.
  init(names: RecordNames, layout: EntityLayout, isAttributes: Bool, unknown: inout String?) {
    self.names = names
    self.address = Unmanaged.passUnretained(names).toOpaque()
    self.layout = layout
    self.isAttributes = isAttributes
    var slots: [Int] = []
    var types: [AttributeType] = []
    var isToMany: [Bool] = []
    var isOrdered: [Bool] = []
    for name in names.names {
      let slot = layout.slotByName[name]
      let property = slot.map { layout.properties[$0] }
      if let slot, isAttributes, let type = property?.attributeType {
        slots.append(slot)
        types.append(type)
      } else if let slot, !isAttributes, let relationship = property?.relationship {
        slots.append(slot)
        isToMany.append(relationship.isToMany)
        isOrdered.append(relationship.isOrdered)
      } else {
        unknown = unknown ?? name
      }
    }
    (self.slots, self.types, self.isToMany, self.isOrdered) = (slots, types, isToMany, isOrdered)
  }
}
