import Domain
import StrictJSON

/// The OpenAPI 3.1 document of a user's data file, made once at start from its resources: per collection
/// its list and item routes with the query language, per singular resource its routes, per value resource
/// (a list of values, read-only) its `GET` alone, `/db` and `/healthz` (`$schema` is no route); each item schema names the top-level fields the file's items had, with the JSON types seen
/// for each in its description. Any value is allowed for any field, and other fields too: items are
/// schemaless, and a write may give a field another type.
///
/// ```swift
/// let bytes = DataFileOpenAPI.document(for: service.store, values: [], readOnly: false).compactBytes
/// ```
enum DataFileOpenAPI {
    /// The document for `store`'s resources and the value resources named `values`; without write operations
    /// when `readOnly`.
    static func document(for store: DocumentStore, values: [String], readOnly: Bool, tokenRequired: Bool)
        -> JSONValue
    {
        var paths = JSONObject()
        paths["/healthz"] = .object(
            JSONObject(["get": operation("The server is up", id: "health", responses: ["200": json(object([:]))])]))
        paths["/db"] = .object(
            JSONObject([
                "get": operation(
                    "The whole state: every resource under its name", id: "database",
                    responses: ["200": json(object([:]))])
            ]))
        let module = JSONObject([
            "description": .string("the module"),
            "content": .object(JSONObject(["text/javascript": .object(JSONObject(["schema": stringSchema]))])),
        ])
        paths["/livestate.js"] = .object(
            JSONObject([
                "get": operation("The live-query client", id: "live_client", responses: ["200": .object(module)])
            ]))
        for (path, operations) in resetPaths(store, readOnly: readOnly, token: tokenRequired) {
            paths[path] = operations
        }
        var schemas = JSONObject()
        schemas["Error"] = .object(
            JSONObject([
                "type": .string("object"),
                "properties": .object(JSONObject(["error": stringSchema, "message": stringSchema])),
                "required": .array([.string("error"), .string("message")]),
            ]))
        let relations = relationParameters(store)
        for resource in store.resources {
            let name = resource.name
            let schemaName = "Item_" + name
            schemas[schemaName] = inferredSchema(resource)
            let item = ref("#/components/schemas/" + schemaName)
            switch resource.kind {
            case .singular:
                var path = JSONObject([
                    "get": operation(
                        "The singular resource \(name)", id: "read_" + name, responses: ["200": json(item)])
                ])
                if !readOnly {
                    // NB: `POST` answers 201, as json-server 0.17's does; `PUT` and `PATCH` answer 200.
                    for (method, summary, status) in [
                        ("put", "Replaces it", "200"), ("post", "Replaces it", "201"),
                        ("patch", "Merges the top-level fields", "200"),
                    ] {
                        path[method] = writeOperation(
                            summary, id: method + "_" + name, body: object([:]), responses: [status: json(item)],
                            token: tokenRequired)
                    }
                }
                paths["/" + name] = .object(path)
            case .collection:
                var list = JSONObject([
                    "get": operation(
                        "The items of \(name), with json-server's query language (docs/own-data.md); with "
                            + "Accept: text/event-stream, the query's result live",
                        id: "list_" + name, parameters: listParameters + relations,
                        responses: [
                            "200": json(.object(JSONObject(["type": .string("array"), "items": item]))),
                            "400": errorResponse,
                        ])
                ])
                var one = JSONObject([
                    "get": operation(
                        "One item of \(name)", id: "get_" + name,
                        parameters: [idParameter] + relations,
                        responses: ["200": json(item), "400": errorResponse, "404": errorResponse])
                ])
                if !readOnly {
                    list["post"] = writeOperation(
                        "Adds an item (its id kept when free, else the next one)", id: "create_" + name,
                        body: object([:]),
                        responses: ["201": json(item), "409": errorResponse], token: tokenRequired)
                    one["put"] = writeOperation(
                        "Replaces the item (its id stays)", id: "replace_" + name, parameters: [idParameter],
                        body: object([:]),
                        responses: ["200": json(item), "404": errorResponse], token: tokenRequired)
                    one["patch"] = writeOperation(
                        "Merges the top-level fields", id: "update_" + name, parameters: [idParameter],
                        body: object([:]),
                        responses: ["200": json(item), "404": errorResponse], token: tokenRequired)
                    one["delete"] = writeOperation(
                        "Deletes the item and the items of other collections that name it as their parent",
                        id: "delete_" + name, parameters: [idParameter], body: nil,
                        responses: ["200": json(object([:])), "404": errorResponse],
                        token: tokenRequired)
                }
                paths["/" + name] = .object(list)
                paths["/" + name + "/{id}"] = .object(one)
            }
        }
        // NB: a value's writes are routes too, but only to say why they are refused (405): not operations.
        let windowParameters = listParameters.filter { parameter in
            guard case .object(let fields) = parameter, case .string(let name)? = fields["name"] else { return false }
            return ["q", "_page", "_limit", "_start", "_end"].contains(name)
        }
        for name in values {
            paths["/" + name] = .object(
                JSONObject([
                    "get": operation(
                        "The list of values \(name) (its elements are not all objects): read-only, edited in the file;"
                            + " whole, or a part with _start, _end, _limit or _page",
                        id: "values_" + name, parameters: windowParameters,
                        responses: [
                            "200": json(.object(JSONObject(["type": .string("array")]))), "400": errorResponse,
                        ])
                ]))
        }
        return .object(
            JSONObject([
                "openapi": .string("3.1.0"),
                "info": .object(
                    JSONObject([
                        "title": .string("LiveState: a data file"),
                        "version": .string(LiveStateVersion.current),
                        "description": .string(
                            "The resources of the data file this server was started on, json-server style "
                                + "(docs/own-data.md). Every error is {\"error\",\"message\"}; any request may also be "
                                + "answered 403 host_not_allowed (a Host that is not this machine's), 413 (a body "
                                + "over 1 MiB) or 415 (a body that is not JSON)."
                                + (store.isShared
                                    ? " A write may also be answered 504 storage_outcome_unknown (PostgreSQL: its commit "
                                        + "was sent and whether it committed could not be learnt within 5 s)." : "")),
                    ])),
                "paths": .object(paths),
                "components": .object(JSONObject(["schemas": .object(schemas)])),
            ]))
    }

    /// `/db/reset` and `/db/checkpoints` (docs/own-data.md, "Reset and checkpoints"); their lists alone when
    /// `readOnly`.
    private static func resetPaths(_ store: DocumentStore, readOnly: Bool, token: Bool) -> [(String, JSONValue)] {
        let checkpoint = JSONValue.object(
            JSONObject([
                "type": .string("object"),
                "properties": .object(
                    JSONObject([
                        "id": .object(JSONObject(["type": .string("integer")])), "name": stringSchema,
                        "eventId": .object(JSONObject(["type": .string("integer")])), "createdAt": stringSchema,
                    ])),
                "required": .array(["id", "name", "eventId", "createdAt"].map { .string($0) }),
            ]))
        let changes = object(["changes": .object(JSONObject(["type": .string("integer"), "minimum": .integer(0)]))])
        let id = JSONValue.object(
            JSONObject([
                "name": .string("id"), "in": .string("path"), "required": .bool(true),
                "schema": .object(JSONObject(["type": .string("integer")])),
            ]))
        let write = { (answers: [(String, JSONValue)]) -> JSONObject in
            var all = JSONObject()
            for (status, answer) in answers { all[status] = answer }
            for status in ["400", "503"] + (token ? ["401"] : []) { all[status] = errorResponse }
            return all
        }
        var list = JSONObject([
            "get": operation(
                "The checkpoints, oldest first", id: "list_checkpoints",
                responses: ["200": json(.object(JSONObject(["type": .string("array"), "items": checkpoint])))])
        ])
        var one = JSONObject([
            "get": operation(
                "One checkpoint", id: "get_checkpoint", parameters: [id],
                responses: ["200": json(checkpoint), "404": errorResponse])
        ])
        guard !readOnly else { return [("/db/checkpoints", .object(list)), ("/db/checkpoints/{id}", .object(one))] }
        let named = JSONValue.object(
            JSONObject([
                "type": .string("object"), "additionalProperties": .bool(false),
                "properties": .object(
                    JSONObject(["name": .object(JSONObject(["type": .string("string"), "maxLength": .integer(200)]))])),
            ]))
        list["post"] = writeOperation(
            "Saves the state as a checkpoint", id: "save_checkpoint", body: named, required: false,
            answers: write([("201", json(checkpoint))]))
        one["delete"] = writeOperation(
            "Drops the checkpoint", id: "delete_checkpoint", parameters: [id], body: nil,
            answers: write([("200", json(object([:]))), ("404", errorResponse)]))
        let restore = writeOperation(
            "Puts every resource back as the checkpoint saved it (one journaled change)", id: "restore_checkpoint",
            parameters: [id], body: nil, answers: write([("200", json(changes)), ("404", errorResponse)]))
        let reset = writeOperation(
            "Puts every resource back as the file was when the server started, or those a JSON object names as it"
                + " gives them (one journaled change)", id: "reset", body: resetBody(store), required: false,
            answers: write([("200", json(changes)), ("507", errorResponse)]))
        return [
            ("/db/reset", .object(JSONObject(["post": reset]))), ("/db/checkpoints", .object(list)),
            ("/db/checkpoints/{id}", .object(one)),
            ("/db/checkpoints/{id}/restore", .object(JSONObject(["post": restore]))),
        ]
    }

    /// A reset's body: some of the resources, each as the file holds it (a list of objects, or an object).
    private static func resetBody(_ store: DocumentStore) -> JSONValue {
        var properties = JSONObject()
        let anObject = JSONValue.object(JSONObject(["type": .string("object")]))
        for resource in store.resources {
            properties[resource.name] =
                resource.kind == .singular
                ? anObject : .object(JSONObject(["type": .string("array"), "items": anObject]))
        }
        return .object(
            JSONObject([
                "type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false),
            ]))
    }

    /// A write of the reset routes: `answers` as given (they take no `Idempotency-Key`: a reset is the same
    /// when sent again), an optional JSON body.
    private static func writeOperation(
        _ summary: String, id: String, parameters: [JSONValue] = [], body: JSONValue?, required: Bool = true,
        answers: JSONObject
    ) -> JSONValue {
        guard case .object(var operation) = operation(summary, id: id, parameters: parameters, responses: [:]) else {
            return .null
        }
        operation["responses"] = .object(answers)
        if let body { operation["requestBody"] = requestBody(body, required: required) }
        return .object(operation)
    }

    /// A JSON request body of `schema`.
    private static func requestBody(_ schema: JSONValue, required: Bool) -> JSONValue {
        .object(
            JSONObject([
                "required": .bool(required),
                "content": .object(JSONObject(["application/json": .object(JSONObject(["schema": schema]))])),
            ]))
    }

    // MARK: Parts

    private static let stringSchema = JSONValue.object(JSONObject(["type": .string("string")]))

    private static let errorResponse = JSONValue.object(
        JSONObject([
            "description": .string("an error"),
            "content": .object(
                JSONObject(["application/json": .object(JSONObject(["schema": ref("#/components/schemas/Error")]))])),
        ]))

    private static let idParameter = JSONValue.object(
        JSONObject([
            "name": .string("id"), "in": .string("path"), "required": .bool(true),
            "schema": .object(JSONObject(["type": .string("string"), "minLength": .integer(1)])),
        ]))

    private static var listParameters: [JSONValue] {
        let integerAtLeast = { (minimum: Int64) in
            JSONValue.object(JSONObject(["type": .string("integer"), "minimum": .integer(minimum)]))
        }
        return [
            query("q", stringSchema), query("_sort", stringSchema),
            query(
                "_order",
                .object(JSONObject(["type": .string("string"), "enum": .array([.string("asc"), .string("desc")])]))),
            query("_page", integerAtLeast(1)), query("_limit", integerAtLeast(0)), query("_start", integerAtLeast(0)),
            query("_end", integerAtLeast(0)),
        ]
    }

    /// `_embed` and `_expand`, each one of the names the server takes (another is a 400): a collection to
    /// embed, and a parent's name as `_expand` reads it (`post` or `posts` for `posts`).
    private static func relationParameters(_ store: DocumentStore) -> [JSONValue] {
        let collections = store.resources.filter { $0.kind == .collection }.map(\.name)
        var parents: [String] = []
        for name in collections {
            var spellings = [name]
            if name.hasSuffix("ies") { spellings.append(String(name.dropLast(3)) + "y") }
            if name.hasSuffix("es") { spellings.append(String(name.dropLast(2))) }
            if name.hasSuffix("s") { spellings.append(String(name.dropLast())) }
            for spelling in spellings where !spelling.isEmpty && !parents.contains(spelling) {
                // NB: only a spelling the server resolves to this very collection (not an earlier one's).
                if DocumentRelations.parent(named: spelling, in: store)?.name == name { parents.append(spelling) }
            }
        }
        let oneOf = { (names: [String]) in
            JSONValue.object(JSONObject(["type": .string("string"), "enum": .array(names.map { .string($0) })]))
        }
        guard !collections.isEmpty else { return [] }
        return [query("_embed", oneOf(collections)), query("_expand", oneOf(parents))]
    }

    private static func ref(_ target: String) -> JSONValue { .object(JSONObject(["$ref": .string(target)])) }

    private static func object(_ properties: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(["type": .string("object"), "properties": .object(JSONObject(properties))]))
    }

    private static func json(_ schema: JSONValue) -> JSONValue {
        .object(
            JSONObject([
                "description": .string("the answer"),
                "content": .object(JSONObject(["application/json": .object(JSONObject(["schema": schema]))])),
            ]))
    }

    private static func query(_ name: String, _ schema: JSONValue) -> JSONValue {
        .object(
            JSONObject(["name": .string(name), "in": .string("query"), "required": .bool(false), "schema": schema]))
    }

    private static func operation(
        _ summary: String, id: String, parameters: [JSONValue] = [], responses: KeyValuePairs<String, JSONValue>
    ) -> JSONValue {
        var operation = JSONObject(["summary": .string(summary), "operationId": .string(id)])
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        operation["responses"] = .object(JSONObject(responses))
        return .object(operation)
    }

    /// Every write's optional `Idempotency-Key` (docs/own-data.md, "Writes and bodies").
    private static let idempotencyKey = JSONValue.object(
        JSONObject([
            "name": .string("Idempotency-Key"), "in": .string("header"), "required": .bool(false),
            "description": .string(
                "1 to 128 visible ASCII characters, kept with the write's first entry: the same request sent again"
                    + " with the key of a write that committed is answered with what that write did and changes"
                    + " nothing; a key another request committed is a 422 idempotency_key_reused."),
            "schema": .object(JSONObject(["type": .string("string"), "pattern": .string("^[!-~]{1,128}$")])),
        ]))

    private static func writeOperation(
        _ summary: String, id: String, parameters: [JSONValue] = [], body: JSONValue?,
        responses: KeyValuePairs<String, JSONValue>, token: Bool
    ) -> JSONValue {
        let parameters = parameters + [idempotencyKey]
        guard case .object(var operation) = operation(summary, id: id, parameters: parameters, responses: responses),
            case .object(var answers)? = operation["responses"]
        else { return .null }
        answers["400"] = errorResponse
        if token { answers["401"] = errorResponse }
        // An `Idempotency-Key` another request committed.
        answers["422"] = errorResponse
        answers["503"] = errorResponse
        // A write that would grow the file past `--max-file-mb` (a delete never does).
        if !id.hasPrefix("delete_") { answers["507"] = errorResponse }
        operation["responses"] = .object(answers)
        if let body { operation["requestBody"] = requestBody(body, required: true) }
        return .object(operation)
    }

    /// The union of the items' top-level fields, each described with the JSON types seen for it; any value,
    /// any other field, and none required (items are schemaless; a write may add, drop or retype any).
    private static func inferredSchema(_ resource: DocumentResource) -> JSONValue {
        var types: [(name: String, types: [String])] = []
        var position: [String: Int] = [:]
        let documents = resource.kind == .singular ? [resource.singular].compactMap { $0 } : resource.items.documents
        for document in documents.prefix(1_000) {
            for (key, value) in document.object.members {
                let type = typeName(value)
                if let index = position[key] {
                    if !types[index].types.contains(type) { types[index].types.append(type) }
                } else {
                    position[key] = types.count
                    types.append((key, [type]))
                }
            }
        }
        var properties = JSONObject()
        for (name, seen) in types.prefix(200) {
            properties[name] = .object(
                JSONObject(["description": .string("in the file: " + seen.joined(separator: " or "))]))
        }
        return .object(JSONObject(["type": .string("object"), "properties": .object(properties)]))
    }

    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .real: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
