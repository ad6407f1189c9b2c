import Domain
import HTTP

/// A framework selection refusal: 404 for an unknown name.
extension FrameworkError: HTTPResponseError {
    package var status: Int { HTTPStatus.notFound }
}
