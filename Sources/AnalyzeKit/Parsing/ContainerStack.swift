/// The kinds of the open containers, innermost last: a bit per level inline
/// for the first 64 levels (no allocation, cheap to copy), an array beyond.
struct ContainerStack {
    private var bits: UInt64 = 0
    private var depth = 0
    /// Levels beyond 64, made only when a line nests that deep. (An empty
    /// array here cost a release of the shared empty storage per scanner,
    /// that is per line; a nil one costs a test.)
    private var overflow: [Bool]?

    mutating func removeAll() {
        bits = 0
        depth = 0
        overflow = nil
    }

    /// Inlined; only the levels beyond 64 (the array) take a call.
    @inline(__always)
    mutating func push(_ isObject: Bool) {
        guard depth < 64 else { return pushBeyondBits(isObject) }
        let bit: UInt64 = 1 &<< UInt64(depth)
        bits = isObject ? bits | bit : bits & ~bit
        depth &+= 1
    }

    @inline(__always)
    mutating func pop() {
        depth &-= 1
        if depth >= 64 { popBeyondBits() }
    }

    @inline(never)
    private mutating func pushBeyondBits(_ isObject: Bool) {
        if overflow == nil { overflow = [] }
        overflow!.append(isObject)  // in place
        depth += 1
    }

    @inline(never)
    private mutating func popBeyondBits() {
        overflow!.removeLast()
    }

    var last: Bool? {
        guard depth > 0 else { return nil }
        if depth > 64 { return overflow!.last }
        return bits & (1 &<< UInt64(depth - 1)) != 0  // depth - 1 < 64
    }
}
