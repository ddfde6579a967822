import XCTest
@testable import AnalyzeKit

/// Memory per event is a documented property (docs/architecture.md): keep it.
final class LayoutTests: XCTestCase {
    func testEventRecordStaysSixtyFourBytes() {
        XCTAssertEqual(MemoryLayout<EventRecord>.stride, 64)
        XCTAssertEqual(MemoryLayout<EventExtra>.stride, 16)
    }
}
