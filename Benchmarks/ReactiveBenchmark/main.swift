// Reactive benchmark: nanoseconds per value for seven cases, each beside the floor (the same work
// written with plain closures) measured in the same run. The same file built with `-D OPENCOMBINE` runs the
// cases on OpenCombine 0.14: `Benchmarks/ReactiveBenchmark/versus-opencombine.sh` builds both and
// alternates them (docs/benchmarks.md).
// Run: swift run -c release --scratch-path .build-bench ReactiveBenchmark   (REACTIVE_BENCH_SCALE=0.1 for a quick run)
import Dispatch
import Foundation
import Glibc

#if OPENCOMBINE
    import OpenCombine
    let library = "OpenCombine"
#else
    import Reactive
    let library = "Reactive"
#endif

let scale = Double(ProcessInfo.processInfo.environment["REACTIVE_BENCH_SCALE"] ?? "1") ?? 1
let runs = 5
/// REACTIVE_BENCH_CASES="1 3" runs only those cases (numbers as in docs/benchmarks.md's table; 7 is memory).
let selectedCases = Set(
    (ProcessInfo.processInfo.environment["REACTIVE_BENCH_CASES"] ?? "1 2 3 4 5 6 7").split(separator: " ").map(
        String.init))
func runs(_ number: Int) -> Bool { selectedCases.contains(String(number)) }

/// Keeps results observable so the optimizer cannot drop the measured work.
final class Sink: @unchecked Sendable {
    var total = 0
}

@inline(never)
func blackhole(_ value: Int) {
    if value == .min { print("") }
}

/// Hides a value from the optimizer, so a floor's closures are really called through the array.
@inline(never)
func opaque<T>(_ value: T) -> T { value }

/// This thread's CPU time: on a shared machine (2 cores, many builds) wall-clock time mostly measures the
/// waiting for a core; CPU time measures the work.
func threadCPUNanoseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

func nanoseconds(_ body: () -> Void) -> Double {
    let start = threadCPUNanoseconds()
    body()
    return threadCPUNanoseconds() - start
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Runs `body` `runs` times and returns the median nanoseconds per unit (`units` per run).
func measure(units: Int, _ body: () -> Void) -> Double {
    median((0..<runs).map { _ in nanoseconds(body) / Double(units) })
}

struct Row {
    let name: String
    let ours: Double
    let floor: Double
    let openCombine: String
    let target: String
    let unit: String
}

var rows: [Row] = [] {
    didSet {
        if let row = rows.last {
            print("measured: \(row.name)")
            fflush(nil)
        }
    }
}

func n(_ base: Int) -> Int { max(1, Int(Double(base) * scale)) }

// 7 (measured first, on a fresh heap). memory per live sink on one subject (RSS delta / 100k, from /proc/self/statm)
func residentBytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (Double(fields[1]) ?? 0) * 4096
}

if runs(7) {
    // Every run keeps its objects alive until the end, so no run reuses memory another one freed.
    let count = 100_000
    let box = Sink()
    var samples: [Double] = []
    var floorSamples: [Double] = []
    var keepTokens: [[AnyCancellable]] = []
    var keepSubjects: [PassthroughSubject<Int, Never>] = []
    var keepHandlers: [[(Int) -> Void]] = []
    for _ in 0..<runs {
        var handlers: [(Int) -> Void] = []
        handlers.reserveCapacity(count)
        let floorBefore = residentBytes()
        for i in 0..<count { handlers.append { box.total &+= $0 &+ i } }
        floorSamples.append((residentBytes() - floorBefore) / Double(count))
        keepHandlers.append(handlers)

        let subject = PassthroughSubject<Int, Never>()
        var tokens: [AnyCancellable] = []
        tokens.reserveCapacity(count)
        let before = residentBytes()
        for i in 0..<count { tokens.append(subject.sink { box.total &+= $0 &+ i }) }
        samples.append((residentBytes() - before) / Double(count))
        keepTokens.append(tokens)
        keepSubjects.append(subject)
    }
    keepTokens.removeAll()
    keepHandlers.removeAll()
    rows.append(
        Row(
            name: "memory per live sink (RSS delta / 100k)", ours: median(samples), floor: median(floorSamples),
            openCombine: "500", target: "<= 200", unit: "B"))
}

// 1. PassthroughSubject -> sink
if runs(1) {
    let count = n(2_000_000)
    let box = Sink()
    let ours = measure(units: count) {
        let subject = PassthroughSubject<Int, Never>()
        let token = subject.sink { box.total &+= $0 }
        for i in 0..<count { subject.send(i) }
        token.cancel()
    }
    let floor = measure(units: count) {
        let handlers: [(Int) -> Void] = opaque([{ box.total &+= $0 }])
        for i in 0..<count { for handler in handlers { handler(i) } }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "PassthroughSubject -> sink", ours: ours, floor: floor, openCombine: "133", target: "<= 30",
            unit: "ns/value"))
}

// 2. subject -> map -> filter -> compactMap -> sink
if runs(2) {
    let count = n(2_000_000)
    let box = Sink()
    let ours = measure(units: count) {
        let subject = PassthroughSubject<Int, Never>()
        let token =
            subject
            .map { $0 &* 3 }
            .filter { $0 & 1 == 0 }
            .compactMap { $0 % 5 == 0 ? nil : $0 }
            .sink { box.total &+= $0 }
        for i in 0..<count { subject.send(i) }
        token.cancel()
    }
    let floor = measure(units: count) {
        let map: (Int) -> Int = { $0 &* 3 }
        let filter: (Int) -> Bool = { $0 & 1 == 0 }
        let compactMap: (Int) -> Int? = { $0 % 5 == 0 ? nil : $0 }
        let sink: (Int) -> Void = { box.total &+= $0 }
        let handlers: [(Int) -> Void] = opaque([
            { value in
                let mapped = map(value)
                guard filter(mapped), let kept = compactMap(mapped) else { return }
                sink(kept)
            }
        ])
        for i in 0..<count { for handler in handlers { handler(i) } }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "-> map -> filter -> compactMap -> sink", ours: ours, floor: floor, openCombine: "198",
            target: "<= 60", unit: "ns/value"))
}

// 3. CurrentValueSubject fanning out to 1,000 sinks
if runs(3) {
    let sinks = 1_000
    let sends = n(2_000)
    let box = Sink()
    let subject = CurrentValueSubject<Int, Never>(0)
    var tokens: [AnyCancellable] = []
    for _ in 0..<sinks { tokens.append(subject.sink { box.total &+= $0 }) }
    let ours = measure(units: sinks * sends) {
        for i in 0..<sends { subject.send(i) }
    }
    tokens.removeAll()
    let handlers: [(Int) -> Void] = (0..<sinks).map { _ in { box.total &+= $0 } }
    let floor = measure(units: sinks * sends) {
        for i in 0..<sends { for handler in handlers { handler(i) } }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "CurrentValueSubject, 1,000 sinks", ours: ours, floor: floor, openCombine: "123", target: "<= 30",
            unit: "ns/delivery"))
}

// 4. switchToLatest with a new inner publisher every 10 values
if runs(4) {
    let count = n(1_000_000)
    let box = Sink()
    let ours = measure(units: count) {
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let token = outer.switchToLatest().sink { box.total &+= $0 }
        var inner = PassthroughSubject<Int, Never>()
        for i in 0..<count {
            if i % 10 == 0 {
                inner = PassthroughSubject<Int, Never>()
                outer.send(inner)
            }
            inner.send(i)
        }
        token.cancel()
    }
    let floor = measure(units: count) {
        var current: (Int) -> Void = { _ in }
        for i in 0..<count {
            if i % 10 == 0 {
                let generation = i
                current = { box.total &+= $0 &+ generation }
            }
            current(i)
        }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "switchToLatest, new inner every 10 values", ours: ours, floor: floor, openCombine: "290",
            target: "<= 145", unit: "ns/inner value"))
}

// 5. flatMap(maxPublishers: .unlimited) over Just
if runs(5) {
    let count = n(500_000)
    let box = Sink()
    let ours = measure(units: count) {
        let subject = PassthroughSubject<Int, Never>()
        let token = subject.flatMap(maxPublishers: .unlimited) { Just($0) }.sink { box.total &+= $0 }
        for i in 0..<count { subject.send(i) }
        token.cancel()
    }
    let floor = measure(units: count) {
        let makeInner: (Int) -> (() -> Int) = opaque({ value in { value &+ box.total } })
        for i in 0..<count { box.total &+= makeInner(i)() }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "flatMap(maxPublishers: .unlimited) over Just", ours: ours, floor: floor, openCombine: "727",
            target: "<= 360", unit: "ns/value"))
}

// 6. sink + cancel churn
if runs(6) {
    let count = n(500_000)
    let box = Sink()
    let subject = PassthroughSubject<Int, Never>()
    let ours = measure(units: count) {
        for _ in 0..<count {
            let token = subject.sink { box.total &+= $0 }
            token.cancel()
        }
    }
    let floor = measure(units: count) {
        var handlers: [(Int) -> Void] = []
        for i in 0..<count {
            handlers.append { box.total &+= $0 &+ i }
            handlers.removeLast()
        }
    }
    blackhole(box.total)
    rows.append(
        Row(
            name: "sink + cancel churn", ours: ours, floor: floor, openCombine: "1,190", target: "<= 400",
            unit: "ns/pair"))
}

// REACTIVE_BENCH_TSV=1: one line per case for the script that alternates this and OpenCombine's build.
if ProcessInfo.processInfo.environment["REACTIVE_BENCH_TSV"] == "1" {
    for row in rows { print("row\t\(library)\t\(row.name)\t\(row.ours)\t\(row.floor)\t\(row.unit)") }
    exit(0)
}
print("\(library) benchmark (release, median of \(runs) in-process runs, thread CPU time, scale \(scale))")
print(
    "The OpenCombine column is a fixed reference figure, not this run's; versus-opencombine.sh measures it in the same run."
)
print("")
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
print(
    pad("case", 46) + lpad(library, 10) + lpad("floor", 9) + lpad("ratio", 8) + lpad("OpenCombine", 13)
        + lpad("target", 9) + "  unit")
for row in rows {
    let ratio = row.floor > 0 ? String(format: "%.1fx", row.ours / row.floor) : "-"
    print(
        pad(row.name, 46) + lpad(String(format: "%.1f", row.ours), 10) + lpad(String(format: "%.1f", row.floor), 9)
            + lpad(ratio, 8) + lpad(row.openCombine, 13) + lpad(row.target, 9) + "  " + row.unit
    )
}
