extension Response {
    /// The response for anything a handler threw: `HTTPError` as is, `DecodingError` as a 400 naming the
    /// field, anything else a 500 whose cause is logged (never shown to the client).
    package init(rendering error: any Error, for request: Request) {
        switch error {
        case let error as HTTPError:
            self.init(error: error)
        case let error as DecodingError:
            self.init(error: HTTPError(decoding: error))
        default:
            Log.error("\(request.method.rawValue) \(request.path) failed: \(error)")
            self.init(error: .internalError)
        }
    }
}
