import Foundation

/// A fixed set of reusable objects: `take` waits until one is free.
///
/// Bounds the pipeline: chunk buffers in flight (memory) and worker partials
/// (one task per partial at a time, so a partial is never shared).
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

    /// Takes every element back (waiting for all to be returned).
    func drain(count: Int) -> [Element] {
        (0..<count).map { _ in take() }
    }
}

/// A worker's partial aggregate, boxed so it can move through a pool.
final class WorkerSlot: @unchecked Sendable {
    var partial: PartialAggregate

    init(_ partial: PartialAggregate) { self.partial = partial }
}
