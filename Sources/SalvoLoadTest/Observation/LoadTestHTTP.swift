import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP GETs of the mock's `/stats` and `/deliveries` and the worker's `/metrics`: small
/// answers from admin ports, read once or a few times a second.
enum LoadTestHTTP {
    static func get(_ url: String, timeout: TimeInterval = 5) async throws(LoadTestError) -> Data {
        let answer = try await fetch(url, timeout: timeout)
        guard answer.status == 200 else { throw LoadTestError(.observation, "GET \(url) answered \(answer.status)") }
        return answer.body
    }

    /// One answer, whatever its status.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// A header by its lower-case name.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name }?.value
        }
    }

    /// A GET whose status the caller judges; throws only when no answer came.
    ///
    /// The request runs in a task of its own, which the caller's cancellation does not reach
    /// (it ends within `timeout` anyway). swift-corelibs-foundation's URLSession can deadlock
    /// when the task awaiting `data(for:)` is cancelled while the answer is being delivered: the
    /// cancellation handler waits for the session's queue, under the task's status lock, and the
    /// queue waits for that lock to resume the task. A test hung there for good (the load
    /// test's deliveries poller, cancelled at the end of a run).
    static func fetch(_ url: String, timeout: TimeInterval = 5) async throws(LoadTestError) -> Answer {
        guard let target = URL(string: url) else { throw LoadTestError(.observation, "not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.timeoutInterval = timeout
        let result = await Task { [request] in try await Self.perform(request, url: url) }.result
        switch result {
        case .success(let answer):
            return answer
        case .failure(let error as LoadTestError):
            throw error
        case .failure(let error):
            throw LoadTestError(.observation, "GET \(url) failed", underlying: "\(error)")
        }
    }

    private static func perform(_ request: URLRequest, url: String) async throws -> Answer {
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw LoadTestError(.observation, "GET \(url): not an HTTP answer")
        }
        let headers = Dictionary(
            http.allHeaderFields.map { ("\($0.key)", "\($0.value)") }, uniquingKeysWith: { first, _ in first })
        return Answer(status: http.statusCode, headers: headers, body: data)
    }

    /// The sum of every sample of `metric` in Prometheus text (all partitions of the group).
    static func sum(of metric: String, in text: String) -> Double? {
        var total: Double?
        for line in text.split(separator: "\n") where line.hasPrefix(metric) {
            let name = line.prefix { $0 != "{" && $0 != " " }
            guard name == metric, let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            total = (total ?? 0) + value
        }
        return total
    }
}
