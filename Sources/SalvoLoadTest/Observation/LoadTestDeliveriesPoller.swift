import Foundation
import Logging

/// Pages through the mock's record over its admin listener (`GET /deliveries?offset=N`,
/// docs/mock-apns.md) and feeds every line to the measurement: how `salvo loadtest` sees
/// deliveries when the mock runs in another container or pod and its record file is out of reach.
///
/// The cursor is the record's byte offset, taken from each answer's `salvo-next-offset`; a full
/// page is followed at once, otherwise the next request waits ``pollInterval``. The mock flushes its
/// record before answering, so a page holds every acceptance up to the request.
public struct LoadTestDeliveriesPoller: Sendable {
    /// The mock's admin base URL (`http://HOST:PORT`).
    public let adminURL: String
    private let measurement: LoadTestMeasurement
    private let logger: Logger
    /// How often the mock is asked when it had nothing more. Default: 200 ms.
    public var pollInterval: Duration = .milliseconds(200)
    /// Bytes per page (the mock accepts 4096…8 MiB). Default: 1 MiB.
    public var pageBytes = 1 << 20

    public init(adminURL: String, measurement: LoadTestMeasurement, logger: Logger = Logger(label: "salvo.loadtest")) {
        self.adminURL = adminURL.hasSuffix("/") ? String(adminURL.dropLast()) : adminURL
        self.measurement = measurement
        self.logger = logger
    }

    /// Polls until cancelled, then reads to the end once more (outside the cancelled task, whose
    /// requests would fail at once), so acceptances of the last moments are counted.
    public func run() async {
        var cursor = Cursor(lines: LoadTestRecordLines(measurement: measurement))
        while !Task.isCancelled {
            if await fetchPage(&cursor) != .full { try? await Task.sleep(for: pollInterval) }
        }
        let finalCursor = cursor
        await Task { [self] in
            var cursor = finalCursor
            while await fetchPage(&cursor) == .full {}
        }.value
    }

    struct Cursor: Sendable {
        var offset: UInt64 = 0
        var lines: LoadTestRecordLines
        /// Failures in a row; only the first of a streak is logged.
        var failures = 0
    }

    enum Page: Equatable {
        /// The mock had more than one page: ask again at once.
        case full
        /// Up to date.
        case partial
        case failed
    }

    /// Reads one page at the cursor and advances it.
    func fetchPage(_ cursor: inout Cursor) async -> Page {
        let url = "\(adminURL)/deliveries?offset=\(cursor.offset)&max_bytes=\(pageBytes)"
        do {
            let answer = try await LoadTestHTTP.fetch(url)
            switch answer.status {
            case 200:
                guard let next = answer.header("salvo-next-offset").flatMap(UInt64.init), next >= cursor.offset else {
                    throw LoadTestError(.observation, "GET \(url): no valid salvo-next-offset header")
                }
                cursor.lines.consume(answer.body)
                cursor.offset = next
                cursor.failures = 0
                let size = answer.header("salvo-record-size").flatMap(UInt64.init) ?? next
                // Less than a line left means the rest is a line still being flushed.
                return size > next && !answer.body.isEmpty ? .full : .partial
            case 416:
                // The record is shorter than the cursor: the mock restarted and truncated it.
                logger.warning(
                    "the mock's record restarted (offset \(cursor.offset) past its end): reading it from the start")
                cursor.offset = 0
                cursor.lines.reset()
                return .full
            default:
                throw LoadTestError(
                    .observation, "GET \(url) answered \(answer.status)",
                    underlying: String(decoding: answer.body.prefix(200), as: UTF8.self))
            }
        } catch {
            if cursor.failures == 0 { logger.warning("mock deliveries: \(error)") }
            cursor.failures += 1
            return .failed
        }
    }
}
