import Reactive
import Testing

@Suite struct MapKeyPath2Tests {
    struct Person {
        let name: String
        let age: Int
        let city: String
    }

    @Test func twoAndThreeKeyPathsPublishTuples() {
        let people = [Person(name: "Ada", age: 36, city: "London")].publisher
        var pairs: [String] = []
        _ = people.map(\.name, \.age).sink { pairs.append("\($0) \($1)") }
        _ = people.map(\.name, \.age, \.city).sink { pairs.append("\($0) \($1) \($2)") }
        #expect(pairs == ["Ada 36", "Ada 36 London"])
    }
}
