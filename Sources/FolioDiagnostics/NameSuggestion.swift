/// ` (did you mean "X"?)` when one known name is close to `name`, else an empty string: the end
/// of every "unknown name" message, in every module.
///
/// A candidate is close when its edit distance from `name` (case aside) is within a limit that
/// grows with the candidate's length. The distance is at least the difference of the two
/// lengths, so a candidate whose length is too far from `name`'s is passed over without
/// computing it: a long unknown name (a script line or an XML attribute of up to 1 MiB) costs
/// time linear in its length, not its length times every known name's.
package func nameSuggestion(for name: String, among known: [String]) -> String {
  let lowered = name.lowercased()
  let length = lowered.count
  var characters: [Character]?
  var best: (name: String, distance: Int)?
  for candidate in known {
    let limit = candidate.count <= 2 ? 0 : candidate.count <= 5 ? 2 : (candidate.count + 2) / 3
    let other = Array(candidate.lowercased())
    guard abs(length - other.count) <= limit else { continue }
    if characters == nil { characters = Array(lowered) }
    let distance = editDistance(characters ?? [], other)
    if distance <= limit, distance < (best?.distance ?? .max) {
      best = (candidate, distance)
    }
  }
  return best.map { " (did you mean \"\($0.name)\"?)" } ?? ""
}

/// Levenshtein distance, in time `a.count · b.count`: ``nameSuggestion(for:among:)`` calls it
/// only for lengths within a few characters of each other.
private func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}
