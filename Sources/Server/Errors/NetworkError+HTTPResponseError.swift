import Domain
import Foundation
import HTTP

/// An upstream load failure as the contract's status: 504 `timeout` when the upstream did not answer
/// within 10 s, otherwise 502 with the seed's case name as the code (`responseError`, `decodingError`,
/// `invalidURL`, `unknown`).
extension NetworkError: HTTPResponseError {
    package var status: Int { self == .timeout ? HTTPStatus.gatewayTimeout : HTTPStatus.badGateway }

    package var code: String { rawValue }

    package var message: String { errorDescription ?? rawValue }
}
