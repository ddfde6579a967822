import XCTest
@testable import AnalyzeKit

/// Memory per event is a documented property (docs/architecture.md): keep it.
final class LayoutTests: XCTestCase {
    func testPerEventStructuresHaveTheDocumentedSizes() {
        XCTAssertEqual(MemoryLayout<EventRecord>.stride, 32)
        XCTAssertEqual(MemoryLayout<EventCopy>.stride, 16)
        XCTAssertEqual(MemoryLayout<EventExtra>.stride, 24)
    }

    /// The per-worker working sets the architecture page lists.
    func testPerWorkerBuffersHaveTheDocumentedSizes() {
        XCTAssertEqual(MemoryLayout<ActionTape.Entry>.stride, 56)
        XCTAssertEqual(MemoryLayout<PendingEvent>.stride, 120)
        XCTAssertEqual(MemoryLayout<AnswerRecord>.stride, 24)
        XCTAssertEqual(MemoryLayout<AnswerOption>.stride, 12)
    }
}
