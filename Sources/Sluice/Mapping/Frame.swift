/// One open object or array on the way down a mapped key path.
///
/// Only containers that some field looks into get a frame; everything else is skipped by counting depth, so the
/// frame stack is as deep as the plan, not as deep as the input.
struct Frame {
    /// The trie node of this container.
    var node: Int32
    var isArray: Bool
    /// The root array of a CSV-like row, whose values are found by the header's names (beside `isArray`, where
    /// the frame has room to spare).
    var readsByHeader = false
    /// In an object: the child the last key selected, for the value that follows it (-1: not mapped).
    var pendingChild: Int32 = -1
    /// In an object: how many keys came so far (the position of the next key in ``KeyOrderCache``).
    var keyCount = 0
    /// In an array: the index of the next element.
    var nextIndex = 0
    /// Absolute offset of the container's first byte when a json field captures it, else -1.
    var captureStart = -1
}
