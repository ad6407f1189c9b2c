import Support

extension Response {
    /// The response for anything a handler threw: an `HTTPResponseError` (`HTTPError` and the domain's
    /// errors) as its status and body, anything else a 500 whose cause is logged (never shown to the
    /// client).
    package init(rendering error: any Error, for request: Request) {
        switch error {
        case let error as any HTTPResponseError:
            self.init(error: error)
        default:
            Log.error("\(request.method.rawValue) \(request.path) failed: \(error)")
            self.init(error: .internalError)
        }
    }

    /// The contract's error body for any `HTTPResponseError`.
    package init(error: some HTTPResponseError) {
        self.init(error: HTTPError(error))
    }
}
