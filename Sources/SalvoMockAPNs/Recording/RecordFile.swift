#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The record file's descriptor and the only raw-pointer code of the recorder: plain POSIX
/// `write`, because the recorder batches lines itself and needs no buffering layer of its own.
/// Not thread-safe; ``MockPushRecorder`` holds it under its lock.
struct RecordFile: ~Copyable {
    private var descriptor: Int32

    /// Creates or truncates `path`; throws with `strerror`'s text.
    init(path: String) throws(MockAPNsError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MockAPNsError(
                .fileUnreadable, "cannot create record file \(path)", underlying: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
    }

    var isOpen: Bool { self.descriptor >= 0 }

    /// Writes all of `bytes`; returns `strerror`'s text on failure.
    func write(_ bytes: [UInt8]) -> String? {
        guard self.descriptor >= 0 else { return "record file is closed" }
        return bytes.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(self.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }

    mutating func close() {
        guard self.descriptor >= 0 else { return }
        _ = systemClose(self.descriptor)
        self.descriptor = -1
    }

    deinit {
        if self.descriptor >= 0 { _ = systemClose(self.descriptor) }
    }
}

// The methods above are named like the system calls, which shadows them inside the type.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
