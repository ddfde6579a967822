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
