/// A route path such as `/todos/:id` or `/static/*path`.
package struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// One path segment of a pattern.
    package enum Segment: Sendable, Hashable {
        /// Matches exactly this text.
        case literal(String)
        /// Matches any one segment and captures it under the name.
        case parameter(String)
        /// Matches the rest of the path (zero or more segments) and captures it under the name.
        case rest(String)

        /// Lower is more specific: a literal beats a parameter beats the rest.
        package var rank: Int {
            switch self {
            case .literal: 0
            case .parameter: 1
            case .rest: 2
            }
        }
    }

    /// The segments, without the empty one before the leading `/`.
    package let segments: [Segment]
    /// The pattern as written.
    package let description: String

    package init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /: \(pattern)")
        description = pattern
        segments = pattern.split(separator: "/").map { part in
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            if part.hasPrefix("*") { return .rest(String(part.dropFirst())) }
            return .literal(String(part))
        }
        precondition(
            segments.dropLast().allSatisfy { if case .rest = $0 { false } else { true } },
            "a * segment must come last: \(pattern)")
    }

    /// Whether `path` (percent-decoded segments) matches; allocates nothing.
    package func matches(_ path: [String]) -> Bool {
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let text):
                guard index < path.count, path[index] == text else { return false }
            case .parameter:
                guard index < path.count, !path[index].isEmpty else { return false }
            case .rest:
                return true
            }
        }
        return path.count == segments.count
    }

    /// The captured parameters if `path` (percent-decoded segments) matches.
    package func match(_ path: [String]) -> [String: String]? {
        guard matches(path) else { return nil }
        var captures: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal:
                continue
            case .parameter(let name):
                captures[name] = path[index]
            case .rest(let name):
                captures[name] = path[index...].joined(separator: "/")
            }
        }
        return captures
    }

    /// The first segment's text when it is a literal (the router's index key).
    package var firstLiteral: String? {
        if case .literal(let text) = segments.first { return text }
        return nil
    }

    /// Whether `self` is more specific than `other` (compared segment by segment).
    package func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (lhs, rhs) in zip(segments, other.segments) where lhs.rank != rhs.rank {
            return lhs.rank < rhs.rank
        }
        return segments.count > other.segments.count
    }
}
