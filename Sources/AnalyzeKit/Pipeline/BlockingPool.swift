import Foundation

/// A fixed set of reusable objects: `take` waits until one is free.
///
/// Bounds the memory for text: chunk buffers in flight.
final class BlockingPool<Element: AnyObject>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element]

    init(_ elements: [Element]) {
        items = elements
    }

    func take() -> Element {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        return items.removeLast()
    }

    func give(_ element: Element) {
        condition.lock()
        items.append(element)
        condition.signal()
        condition.unlock()
    }
}

/// The workers' finished partials, each stored once by its own worker.
final class WorkerPartials: @unchecked Sendable {
    private let lock = NSLock()
    private var partials: [PartialAggregate?]

    init(count: Int) { partials = Array(repeating: nil, count: count) }

    /// Stores worker `index`'s partial (once per run, so the lock costs nothing).
    func store(_ partial: consuming PartialAggregate, at index: Int) {
        lock.lock()
        partials[index] = partial
        lock.unlock()
    }

    /// Every stored partial, moved out.
    func take() -> [PartialAggregate] {
        lock.lock()
        defer { lock.unlock() }
        let all = partials.compactMap { $0 }
        partials = []
        return all
    }
}
