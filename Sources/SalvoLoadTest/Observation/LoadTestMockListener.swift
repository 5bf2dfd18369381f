import Foundation
import SalvoAPNs
import SalvoMockAPNs

/// Feeds an in-process `MockAPNsServer`'s deliveries straight into the measurement (`salvo demo`
/// and tests): pass it in the server's `listeners`.
///
/// The mock calls listeners right after handing its 200 to HTTP/2, so this listener stamps the
/// delivery with the time of the call — the answer time, which includes the mock's scenario
/// latency — while the record file's `received_at_ms` is the request's arrival. Use this one
/// when APNs's own latency belongs in the end-to-end figure.
public struct LoadTestMockListener: MockAPNsListener {
    private let measurement: LoadTestMeasurement

    public init(measurement: LoadTestMeasurement) {
        self.measurement = measurement
    }

    public func pushAccepted(_ push: MockAcceptedPush) {
        measurement.observeRecord(apnsID: push.apnsID, receivedAtMilliseconds: LoadTestClock.nowMilliseconds())
    }

    public func broadcastAccepted(_ broadcast: MockAcceptedBroadcast) {
        guard let id = APNsID(broadcast.requestID) else { return }
        measurement.observeRecord(apnsID: id, receivedAtMilliseconds: LoadTestClock.nowMilliseconds())
    }
}
