import Domain
import HTTP

extension Todo: ListQueryItem {
    static let queryFields = ["id", "title", "completed"]

    func queryValue(of field: String) -> ListQueryValue? {
        switch field {
        case "id": .integer(id)
        case "title": .text(title)
        case "completed": .boolean(completed)
        default: nil
        }
    }
}

extension Post: ListQueryItem {
    static let queryFields = ["userId", "id", "title", "body"]

    func queryValue(of field: String) -> ListQueryValue? {
        switch field {
        case "userId": .integer(userId)
        case "id": .integer(id)
        case "title": .text(title)
        case "body": .text(body)
        default: nil
        }
    }
}

extension AlbumModel: ListQueryItem {
    static let queryFields = ["albumId", "id", "title", "url", "thumbnailUrl"]

    func queryValue(of field: String) -> ListQueryValue? {
        switch field {
        case "albumId": .integer(albumId)
        case "id": .integer(id)
        case "title": .text(title)
        case "url": .text(url)
        case "thumbnailUrl": .text(thumbnailUrl)
        default: nil
        }
    }
}

extension AppleFramework: ListQueryItem {
    static let queryFields = ["name", "imageName", "urlString", "description"]

    func queryValue(of field: String) -> ListQueryValue? {
        switch field {
        case "name": .text(name)
        case "imageName": .text(imageName)
        case "urlString": .text(urlString)
        case "description": .text(description)
        default: nil
        }
    }
}

extension Movie: ListQueryItem {
    static let queryFields = ["id", "resultType", "image", "title", "description"]

    func queryValue(of field: String) -> ListQueryValue? {
        switch field {
        case "id": .text(id)
        case "resultType": .text(resultType)
        case "image": .text(image)
        case "title": .text(title)
        case "description": .text(description)
        default: nil
        }
    }
}
