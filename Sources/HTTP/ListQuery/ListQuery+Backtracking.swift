extension ListQuery {
    /// Why a `_like` pattern could make the backtracking regex engine run for seconds or hours, or nil.
    ///
    /// NB: Swift's `Regex` backtracks, and a `_like` runs over every item of a list (5,000 albums) on an event
    /// loop's thread: `^(\w+\s?)*!$` alone held a loop for minutes. So a pattern may use at most one
    /// quantifier (`*`, `+`, `?`, `{n,m}`), none on a group, and no back-reference, which keeps the work at
    /// most quadratic in an item's length; `^gam`, `sun$`, `a.*b` and `[0-9]+` remain.
    package static func backtrackingRisk(_ pattern: String) -> String? {
        if pattern.count > 100 { return "a pattern is at most 100 characters" }
        let scalars = Array(pattern.unicodeScalars)
        var quantifiers = 0
        var index = 0
        var previous: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\":
                if index + 1 < scalars.count {
                    let next = scalars[index + 1]
                    if ("1"..."9").contains(next) || next == "k" || next == "g" {
                        return "back-references are not supported"
                    }
                }
                index += 2
                previous = "a"
                continue
            case "[":
                // A class is one atom; quantifier characters inside it are literals.
                index += 1
                if index < scalars.count, scalars[index] == "^" { index += 1 }
                if index < scalars.count, scalars[index] == "]" { index += 1 }
                while index < scalars.count, scalars[index] != "]" {
                    index += scalars[index] == "\\" ? 2 : 1
                }
                index += 1
                previous = "a"
                continue
            case "*", "+", "?", "{":
                if scalar == "?", previous == "(" { break }  // `(?:`, `(?i)`: group syntax
                if scalar == "{", !(index + 1 < scalars.count && ("0"..."9").contains(scalars[index + 1])) { break }
                if scalar == "?" || scalar == "+", let previous, ["*", "+", "?", "}"].contains(previous) {
                    break  // a lazy or possessive modifier of the quantifier before
                }
                if previous == ")" { return "a quantifier on a group can take exponential time" }
                quantifiers += 1
                if quantifiers > 1 { return "a pattern may use one quantifier (*, +, ?, {n,m}) at most" }
                if scalar == "{" {
                    while index < scalars.count, scalars[index] != "}" { index += 1 }
                    previous = "}"
                    index += 1
                    continue
                }
            default:
                break
            }
            previous = scalar
            index += 1
        }
        return nil
    }
}
