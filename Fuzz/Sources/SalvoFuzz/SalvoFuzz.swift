import CLibFuzzer
import SalvoFuzzing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libFuzzer binary for every entry point: `SALVO_FUZZ_TARGET` (a `FuzzTarget` raw value:
/// job-decoder, apns-response, mock-request, mock-scenario, worker-configuration) picks the one a
/// run drives; the arguments are libFuzzer's (`-max_total_time=60 CORPUS…`, or files to replay).
///
/// It has a `main` of its own that hands over to `LLVMFuzzerRunDriver`, rather than exporting
/// `LLVMFuzzerTestOneInput` for libFuzzer's `main`: SwiftPM links every executable with `main`
/// aliased to the module's entry point. A broken invariant is reported and aborts, so libFuzzer
/// saves the input as a crash.
@main
enum SalvoFuzz {
    nonisolated(unsafe) static var target = FuzzTarget.jobDecoder

    static func main() {
        let name = getenv("SALVO_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            report("set SALVO_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(2)
        }
        target = chosen
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in SalvoFuzz.testOneInput(data, size) })
    }

    /// One input, as libFuzzer hands it over.
    static func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do throws(FuzzFinding) {
            try target.run(bytes)
        } catch {
            report("\(target.rawValue): \(error)")
            abort()
        }
        return 0
    }

    /// One line on standard error (unbuffered, so it is there before `abort`).
    static func report(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
