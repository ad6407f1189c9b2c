import Foundation
package import StrictJSON

extension Request {
    /// The `Content-Type`'s media type, lowercased, without parameters (`application/json`); nil without one.
    package var mediaType: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        // An empty value (`Content-Type:` with nothing after it) splits into no pieces at all.
        return (contentType.split(separator: ";", maxSplits: 1).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether the `Content-Type` is `application/x-www-form-urlencoded` (any parameters): an HTML form's and
    /// jQuery's default.
    package var hasFormContentType: Bool { mediaType == "application/x-www-form-urlencoded" }

    /// A data file item's body: a JSON object (`jsonObjectBody`), or a form body taken as json-server takes
    /// it (Express's `urlencoded({extended: false})`): every value a string, a repeated name a list of its
    /// strings, `a[b]` a name like any other. An empty `idField` value is no id given (a form's hidden id
    /// field before the item exists). 415 for any other body type.
    ///
    /// ```swift
    /// // Content-Type: application/x-www-form-urlencoded, body "name=Ann+Lee&age=31&tag=a&tag=b"
    /// try request.documentBody(idField: "id")   // {"name": "Ann Lee", "age": "31", "tag": ["a", "b"]}
    /// ```
    package func documentBody(idField: String) throws(HTTPError) -> JSONObject {
        guard hasFormContentType else { return try jsonObjectBody() }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw HTTPError.badRequest("the form body is not valid UTF-8", code: "invalid_form")
        }
        let form = QueryParameters(parsing: Substring(text))
        var object = JSONObject()
        for name in form.names {
            let values = form.all(name)
            if name == idField && values == [""] { continue }
            object[name] = values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))
        }
        return object
    }
}
