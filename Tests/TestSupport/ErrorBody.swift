import Foundation
package import HTTP

/// The contract's error body, decoded.
package struct ErrorBody: Decodable, Equatable {
    package var error: String
    package var message: String

    package init(_ response: Response) throws {
        self = try JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
    }
}
