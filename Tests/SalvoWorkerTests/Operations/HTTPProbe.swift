import Foundation

/// One HTTP request with `curl` (an independent client), for talking to a listener the test
/// started on 127.0.0.1.
struct HTTPProbe {
    struct Answer {
        var status: Int
        var body: String
        var headers: String
    }

    static func request(_ url: String, method: String = "GET") throws -> Answer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headers = directory.appendingPathComponent("headers").path
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "10", "-X", method, "-D", headers, "-w", "\n%{http_code}", url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CurlFailed(status: process.terminationStatus, url: url) }
        let text = String(decoding: data, as: UTF8.self)
        let split = text.lastIndex(of: "\n") ?? text.startIndex
        return Answer(
            status: Int(text[text.index(after: split)...]) ?? -1,
            body: String(text[..<split]),
            headers: (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "")
    }

    struct CurlFailed: Error {
        var status: Int32
        var url: String
    }
}
