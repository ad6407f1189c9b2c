import Reactive

/// Subscribes two sinks to `subject` ("a" first, then "b"), sends 1, and has "a" send 2 from inside its delivery
/// of 1; returns what each sink saw, in the order they saw it.
func logOfANestedSend<S: Subject>(on subject: S) -> [String] where S.Output == Int, S.Failure == Never {
    var log: [String] = []
    let first = subject.sink { value in
        log.append("a\(value)")
        if value == 1 { subject.send(2) }
    }
    let second = subject.sink { log.append("b\($0)") }
    subject.send(1)
    first.cancel()
    second.cancel()
    return log
}
