import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP GETs of the mock's `/stats` and the worker's `/metrics`: both are small text
/// answers on a local admin port, read a few times per run.
enum LoadTestHTTP {
    static func get(_ url: String, timeout: TimeInterval = 5) async throws(LoadTestError) -> Data {
        guard let target = URL(string: url) else { throw LoadTestError(.observation, "not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.timeoutInterval = timeout
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            if let http = response as? HTTPURLResponse, http.statusCode != 200 {
                throw LoadTestError(.observation, "GET \(url) answered \(http.statusCode)")
            }
            return data
        } catch let error as LoadTestError {
            throw error
        } catch {
            throw LoadTestError(.observation, "GET \(url) failed", underlying: "\(error)")
        }
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
