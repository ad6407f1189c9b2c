package import Patterns

/// json-server's custom routes (`--routes routes.json`): rules that rewrite a request's URL before it is
/// routed, written as json-server 0.17 writes them (its `express-urlrewrite`, whose patterns are those of
/// `path-to-regexp` 1.x):
///
/// ```json
/// {
///   "/api/*": "/$1",
///   "/:resource/:id/show": "/:resource/:id",
///   "/posts/:category": "/posts?category=:category",
///   "/articles\\?id=:id": "/posts/:id"
/// }
/// ```
///
/// - A rule's pattern is matched, case-insensitively and whole, against the URL as sent (path and query,
///   still percent-encoded); a trailing `/` is optional. `:name` takes one path segment (`:id(\\d+)` with a
///   pattern of its own; `?` makes it optional, `*` and `+` repeat it), `*` anything, `(…)` an unnamed group,
///   and `\\` makes the next character literal (`\\?` a query's question mark).
/// - The target takes each group's text for `$1`, `$2`, … (groups in order) and for `:name`.
/// - Every rule is tried in the file's order, each on the URL the rules before it made, as json-server's
///   rewriters are chained middlewares.
///
/// Patterns are compiled by PCRE2 at start with `Patterns`' hard limits, so a rule can neither fail later
/// nor make a match run on.
package struct URLRewrites: Sendable {
    /// One rule: its pattern as written and compiled, the name of each group, and the target.
    package struct Rule: Sendable {
        package var source: String
        package var target: String
        let pattern: Pattern
        /// Each capturing group's name (`:name`), or its number for an unnamed one.
        let names: [String]
    }

    /// The rules, in order.
    package let rules: [Rule]

    /// Compiles `rules` (pattern, target), in order; a pattern that does not compile throws, naming it.
    package init(_ rules: [(pattern: String, target: String)]) throws(URLRewriteError) {
        self.rules = try rules.map { rule throws(URLRewriteError) in try Self.compile(rule.pattern, rule.target) }
    }

    /// The longest URL the rules may make (a request's head is at most 64 KiB): a target that repeats a
    /// group, chained, would otherwise grow a client's URL without bound.
    package static let maxLength = 64 << 10

    /// `target` (`/path?query`) after every rule, in order; `target` itself when none matched; nil when a
    /// rule made it longer than `maxLength`.
    package func rewrite(_ target: String) -> String? {
        var url = target
        for rule in rules {
            let matcher = PatternMatcher(rule.pattern)
            // NB: a match that reaches the pattern's work limit is taken as no match.
            guard let groups = try? matcher.captures(in: url) else { continue }
            url = Self.substitute(rule.target, groups: groups, names: rule.names)
            guard url.utf8.count <= Self.maxLength else { return nil }
        }
        return url
    }

    /// `request` addressed to its rewritten URL (method, headers and body kept); itself when no rule matched.
    package func apply(to request: Request) throws(HTTPError) -> Request {
        let target = request.rawQuery.isEmpty ? request.rawPath : request.rawPath + "?" + request.rawQuery
        guard let rewritten = rewrite(target) else {
            throw HTTPError(414, "uri_too_long", "the routes file's rules make this URL longer than 64 KiB")
        }
        guard rewritten != target else { return request }
        return Request(request.method, rewritten, headers: request.headers, body: request.body)
    }

    // MARK: Patterns

    /// One part of a pattern: literal text, or a group.
    private enum Part {
        case text(String)
        /// A group: its name (or number), the `/` or `.` before it, its own pattern, and its modifier.
        case group(name: String, prefix: String, pattern: String, modifier: Character?, partial: Bool)
    }

    private static func compile(_ source: String, _ target: String) throws(URLRewriteError) -> Rule {
        let parts = parse(source)
        var regex = ""
        var names: [String] = []
        for part in parts {
            switch part {
            case .text(let text):
                regex += escaped(text)
            case .group(let name, let prefix, let pattern, let modifier, let partial):
                names.append(name)
                let prefix = escaped(prefix)
                var capture = "(?:\(pattern))"
                if modifier == "*" || modifier == "+" { capture += "(?:\(prefix)\(capture))*" }
                if modifier == "?" || modifier == "*" {
                    regex += partial ? "\(prefix)(\(capture))?" : "(?:\(prefix)(\(capture)))?"
                } else {
                    regex += "\(prefix)(\(capture))"
                }
            }
        }
        // A trailing `/` is optional either way, and the whole URL must match.
        if regex.hasSuffix("\\/") { regex.removeLast(2) }
        regex = "^" + regex + "(?:\\/(?=$))?$"
        let limits = PatternLimits(maxPatternLength: 4096, matchLimit: 100_000)
        do {
            return Rule(source: source, target: target, pattern: try Pattern(regex, limits: limits), names: names)
        } catch {
            throw URLRewriteError(rule: source, reason: "\(error)")
        }
    }

    /// `source` as text and groups: `\x` is a literal `x`; `:name`, `:name(pattern)`, `(pattern)` and `*`
    /// are groups, with the `/` or `.` right before one as its prefix and `?`, `*` or `+` right after a named or
    /// unnamed one as its modifier.
    private static func parse(_ source: String) -> [Part] {
        let characters = Array(source)
        var parts: [Part] = []
        var text = ""
        var number = 0
        var index = 0
        func flushText() {
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                text.append(characters[index + 1])
                index += 2
                continue
            }
            var name: String?
            var pattern: String?
            var end = index
            if character == ":" {
                var scan = index + 1
                while scan < characters.count,
                    characters[scan].isLetter || characters[scan].isNumber
                        || characters[scan] == "_"
                {
                    scan += 1
                }
                if scan > index + 1 {
                    name = String(characters[(index + 1)..<scan])
                    end = scan
                    if let (group, after) = group(characters, at: scan) {
                        pattern = group
                        end = after
                    }
                }
            } else if character == "(", let (group, after) = group(characters, at: index) {
                pattern = group
                end = after
            } else if character == "*" {
                pattern = ".*"
                end = index + 1
            }
            guard end > index else {
                text.append(character)
                index += 1
                continue
            }
            var prefix = ""
            if let last = text.last, last == "/" || last == "." {
                prefix = String(last)
                text.removeLast()
            }
            flushText()
            var modifier: Character?
            if character != "*", end < characters.count, "?*+".contains(characters[end]) {
                modifier = characters[end]
                end += 1
            }
            let delimiter = prefix.isEmpty ? "/" : prefix
            if name == nil {
                name = String(number)
                number += 1
            }
            let partial = !prefix.isEmpty && end < characters.count && String(characters[end]) != prefix
            parts.append(
                .group(
                    name: name ?? "", prefix: prefix,
                    pattern: pattern.map(escapedGroup) ?? "[^\(escaped(delimiter))]+?",
                    modifier: modifier, partial: partial))
            index = end
        }
        flushText()
        return parts
    }

    /// The pattern inside the parentheses at `start` (no parenthesis inside it unless escaped) and the index
    /// after them; nil when there are none.
    private static func group(_ characters: [Character], at start: Int) -> (String, Int)? {
        guard start < characters.count, characters[start] == "(" else { return nil }
        var index = start + 1
        var pattern = ""
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                pattern.append(character)
                pattern.append(characters[index + 1])
                index += 2
                continue
            }
            if character == "(" { return nil }
            if character == ")" { return pattern.isEmpty ? nil : (pattern, index + 1) }
            pattern.append(character)
            index += 1
        }
        return nil
    }

    /// `text` with every character a pattern gives a meaning escaped.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if ".+*?=^!:${}()[]|/\\".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A group's own pattern with its parentheses (and `=!:$/`) taken literally: a rule has one capture per
    /// group, so `$n` counts groups.
    private static func escapedGroup(_ pattern: String) -> String {
        var out = ""
        var escapedNext = false
        for character in pattern {
            if escapedNext {
                out.append(character)
                escapedNext = false
                continue
            }
            if character == "\\" {
                out.append(character)
                escapedNext = true
                continue
            }
            if "=!:$/()".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    // MARK: Targets

    /// `target` with `$n` replaced by group `n`'s text and `:name` by the named group's (empty when the
    /// group took no part, or the rule has no such group).
    private static func substitute(_ target: String, groups: [Substring?], names: [String]) -> String {
        let characters = Array(target)
        var out = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            var scan = index + 1
            if character == "$" {
                while scan < characters.count, characters[scan].isASCII, characters[scan].isNumber { scan += 1 }
                if scan > index + 1, let number = Int(String(characters[(index + 1)..<scan])) {
                    if number < groups.count, let text = groups[number] { out += text }
                    index = scan
                    continue
                }
            } else if character == ":" {
                while scan < characters.count,
                    characters[scan].isLetter || characters[scan].isNumber
                        || characters[scan] == "_"
                {
                    scan += 1
                }
                if scan > index + 1 {
                    let name = String(characters[(index + 1)..<scan])
                    if let position = names.firstIndex(of: name), position + 1 < groups.count,
                        let text = groups[position + 1]
                    {
                        out += text
                    }
                    index = scan
                    continue
                }
            }
            out.append(character)
            index += 1
        }
        return out
    }
}

/// A rule of `--routes` that cannot be used: its pattern, and why.
package struct URLRewriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule's pattern as written.
    package var rule: String
    /// Why it cannot be compiled.
    package var reason: String

    package var description: String { "the route '\(rule)' cannot be used: \(reason)" }
}
