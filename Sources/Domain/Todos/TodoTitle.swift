import Foundation

/// The title rule of `TaskListViewModel.addNewTask`: seed 004's `filter { $0.count > 3 }`, applied to the
/// title trimmed of white space, counted in `Character`s (so an emoji with modifiers counts once), plus an
/// upper bound so that one request cannot store a novel.
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
    package static func normalized(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `raw` passes the rule; the predicate of `addNewTask`'s `filter`.
    package static func isAcceptable(_ raw: String) -> Bool {
        (try? validated(raw)) != nil
    }

    /// The normalized title, or the reason it is refused.
    package static func validated(_ raw: String) throws(TodoError) -> String {
        let title = normalized(raw)
        let count = title.count
        if count < minimumLength { throw .titleTooShort }
        if count > maximumLength { throw .titleTooLong }
        return title
    }
}
