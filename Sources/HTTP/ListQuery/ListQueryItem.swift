/// A value the list query language can filter, search and sort: it names its fields and reads them.
///
/// ```swift
/// extension Todo: ListQueryItem {
///     static let queryFields = ["id", "title", "completed"]
///     func queryValue(of field: String) -> ListQueryValue? { ... }
/// }
/// ```
package protocol ListQueryItem: Encodable, Sendable {
    /// The fields a query may name (the JSON keys); any other name is a 400.
    static var queryFields: [String] { get }
    /// The value of `field`, one of `queryFields`.
    func queryValue(of field: String) -> ListQueryValue?
}
