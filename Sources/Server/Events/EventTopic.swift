import HTTP

/// A named stream of `/events`: one per view-model subject the page shows.
///
/// ```swift
/// EventTopic(rawValue: "todos")?.replaysCurrentValue  // true
/// EventTopic.frameworks.replaysCurrentValue          // false: a passthrough subject
/// ```
enum EventTopic: String, CaseIterable, Sendable, Hashable {
    /// `TaskListViewModel.tasks`: `[Todo]`.
    case todos
    /// `PostViewModel.posts`: `[Post]`.
    case posts
    /// `AlbumViewModel.albumSubject`: `[AlbumModel]`.
    case albums
    /// `AlbumViewModel.imageSubject`: `{"url", "contentType", "bytes"}` once there is an image.
    case image
    /// `FrameworkListViewModel.didSelect`: `{"selected": AppleFramework}`.
    case frameworks
    /// `MovieSearchViewModel.results`: a search result once a search ran.
    case movies

    /// The topic's bit in a client's topic mask (`EventClient`), distinct per topic.
    var bit: UInt8 {
        switch self {
        case .todos: 1
        case .posts: 2
        case .albums: 4
        case .image: 8
        case .frameworks: 16
        case .movies: 32
        }
    }

    /// Whether the subject is a current-value subject, whose latest value a new subscriber gets first.
    var replaysCurrentValue: Bool { self != .frameworks }

    /// Whether the value is a list of identifiable items, so `?diff=1` can send changes instead.
    var isCollection: Bool { self == .todos || self == .posts || self == .albums }

    /// The topics named by every `topics` query value (comma-separated, repeatable); all when there is none.
    ///
    /// An unknown name, or a value that names nothing, is a 400 naming it.
    static func parse(_ values: [String]) throws(HTTPError) -> Set<EventTopic> {
        guard !values.isEmpty else { return Set(allCases) }
        var topics = Set<EventTopic>()
        for value in values {
            for name in value.split(separator: ",", omittingEmptySubsequences: true) {
                let name = trimmingSpaces(name)
                guard !name.isEmpty else { continue }
                guard let topic = EventTopic(rawValue: String(name)) else {
                    throw .badRequest(
                        "unknown topic \"\(name)\" in topics; known topics: \(known)", code: "unknown_topic")
                }
                topics.insert(topic)
            }
        }
        guard !topics.isEmpty else {
            throw .badRequest("topics names no topic; known topics: \(known)", code: "unknown_topic")
        }
        return topics
    }

    /// The text without leading and trailing spaces and tabs.
    private static func trimmingSpaces(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    private static var known: String { allCases.map(\.rawValue).joined(separator: ",") }
}
