import Foundation

/// The title rule of `TaskListViewModel.addNewTask`: seed 004's `filter { $0.count > 3 }`, applied to the
/// title trimmed of white space, counted in `Character`s (so an emoji with modifiers counts once), plus an
/// upper bound so that one request cannot store a novel, and no control characters (Unicode category Cc:
/// NUL, escapes, tabs and line breaks inside the title), so that what is stored reads back as the same text
/// from any store and any client.
///
/// ```swift
/// TodoTitle.isAcceptable("Walk the dog")  // true
/// TodoTitle.isAcceptable("   ab ")        // false: "ab" has 2 characters
/// ```
package enum TodoTitle {
    /// The fewest characters a kept title has (seed 004 keeps `count > 3`).
    package static let minimumLength = 4
    /// The most characters a kept title has.
    package static let maximumLength = 500

    /// The title as it is stored: white space and newlines trimmed at both ends.
    ///
    /// NB: the same scalars as `trimmingCharacters(in: .whitespacesAndNewlines)`, found from both ends, so a
    /// 1 MiB title costs what its padding costs, not a copy of the whole text.
    package static func normalized(_ raw: String) -> String {
        let scalars = raw.unicodeScalars
        let blank = CharacterSet.whitespacesAndNewlines
        guard let first = scalars.firstIndex(where: { !blank.contains($0) }),
            let last = scalars.lastIndex(where: { !blank.contains($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// Whether `raw` passes the rule; the predicate of `addNewTask`'s `filter`.
    package static func isAcceptable(_ raw: String) -> Bool {
        (try? validated(raw)) != nil
    }

    /// The normalized title, or the reason it is refused.
    package static func validated(_ raw: String) throws(TodoError) -> String {
        let title = normalized(raw)
        // Counting stops past the maximum: a 1 MiB title is refused after 501 characters, not a million.
        let end = title.index(title.startIndex, offsetBy: maximumLength + 1, limitedBy: title.endIndex)
        if end != nil { throw .titleTooLong }
        if title.count < minimumLength { throw .titleTooShort }
        if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .titleInvalid
        }
        return title
    }
}
