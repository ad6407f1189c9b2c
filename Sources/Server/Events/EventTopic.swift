import HTTP

/// A named stream of `/events`: one per view-model subject the server shows (the seeds' six, or one per
/// resource of a user's data file).
///
/// ```swift
/// EventTopic.todos.replaysCurrentValue                       // true
/// EventTopic.frameworks.replaysCurrentValue                  // false: a passthrough subject
/// try EventTopic.parse(["todos,posts"], known: EventTopic.allCases)
/// ```
struct EventTopic: Sendable, Hashable {
    /// The name clients ask for in `topics` and see as `event:`.
    let rawValue: String
    /// The topic's place in a client's `TopicMask`, distinct among a server's topics.
    let slot: Int
    /// Whether the subject is a current-value subject, whose latest value a new subscriber gets first.
    let replaysCurrentValue: Bool
    /// Whether the value is a list of identifiable items, so `?diff=1` can send changes instead.
    let isCollection: Bool

    /// The seed topic named `rawValue`, or nil.
    init?(rawValue: String) {
        guard let topic = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = topic
    }

    private init(_ name: String, slot: Int, replays: Bool = true, collection: Bool = false) {
        rawValue = name
        self.slot = slot
        replaysCurrentValue = replays
        isCollection = collection
    }

    /// `TaskListViewModel.tasks`: `[Todo]`.
    static let todos = EventTopic("todos", slot: 0, collection: true)
    /// `PostViewModel.posts`: `[Post]`.
    static let posts = EventTopic("posts", slot: 1, collection: true)
    /// `AlbumViewModel.albumSubject`: `[AlbumModel]`.
    static let albums = EventTopic("albums", slot: 2, collection: true)
    /// `AlbumViewModel.imageSubject`: `{"url", "contentType", "bytes"}` once there is an image.
    static let image = EventTopic("image", slot: 3)
    /// `FrameworkListViewModel.didSelect`: `{"selected": AppleFramework}`.
    static let frameworks = EventTopic("frameworks", slot: 4, replays: false)
    /// `MovieSearchViewModel.results`: a search result once a search ran.
    static let movies = EventTopic("movies", slot: 5)

    /// The seed topics, in the order `/events` lists them.
    static let allCases: [EventTopic] = [.todos, .posts, .albums, .image, .frameworks, .movies]

    /// The topic of a data file's resource `name`, the `index`th of the file.
    static func document(_ name: String, index: Int, collection: Bool) -> EventTopic {
        precondition(index >= 0, "a resource's index is not negative")
        return EventTopic(name, slot: index, collection: collection)
    }

    /// The topics of `known` named by every `topics` query value (comma-separated, repeatable); all of
    /// `known` when there is none.
    ///
    /// An unknown name, or a value that names nothing, is a 400 naming it.
    static func parse(_ values: [String], known: [EventTopic] = allCases) throws(HTTPError) -> Set<EventTopic> {
        guard !values.isEmpty else { return Set(known) }
        let list = known.map(\.rawValue).joined(separator: ",")
        var topics = Set<EventTopic>()
        for value in values {
            for name in value.split(separator: ",", omittingEmptySubsequences: true) {
                let name = trimmingSpaces(name)
                guard !name.isEmpty else { continue }
                guard let topic = known.first(where: { $0.rawValue == name }) else {
                    throw .badRequest(
                        "unknown topic \"\(name)\" in topics; known topics: \(list)", code: "unknown_topic")
                }
                topics.insert(topic)
            }
        }
        guard !topics.isEmpty else {
            throw .badRequest("topics names no topic; known topics: \(list)", code: "unknown_topic")
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
}
