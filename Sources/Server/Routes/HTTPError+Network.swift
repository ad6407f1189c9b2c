import Domain
import HTTP

extension HTTPError {
    /// An upstream load failure as the contract's status: 504 `timeout` when the upstream did not answer
    /// within 10 s, otherwise 502 with the seed's case name as the code (`responseError`, `decodingError`,
    /// `invalidURL`, `unknown`).
    init(_ error: NetworkError) {
        let status = error == .timeout ? 504 : 502
        self.init(status, error.rawValue, error.errorDescription ?? error.rawValue)
    }
}
