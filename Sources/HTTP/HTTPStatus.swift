/// The status codes that domain errors map to, by name (`Response.status` stays an `Int`).
package enum HTTPStatus {
    /// 404: no such resource (an unknown id or name).
    package static let notFound = 404
    /// 422: well-formed, but against a rule of the domain (a title too short, an empty URL).
    package static let unprocessableContent = 422
    /// 502: the upstream answered with something unusable.
    package static let badGateway = 502
    /// 503: the change could not be committed (storage failed); nothing changed.
    package static let serviceUnavailable = 503
    /// 504: the upstream did not answer in time.
    package static let gatewayTimeout = 504
}
