import SalvoAPNs
import SalvoHTTP2

/// Apple's request rules for one connection: reads a request's fields and answers the
/// validator's verdict.
///
/// Why it remembers the previous verdict: a sender's requests on one connection repeat the same
/// topic, push type, priority, expiration, collapse id and provider token, byte for byte (a
/// campaign differs only in token, `apns-id` and payload). When a request repeats the previous
/// one's fields and that request was accepted, the header rules cannot answer differently, so
/// only what varies is checked here: method, path and token, `apns-id`, body size. Anything that
/// fails those goes through the full validator, so rejections (and which rule wins when several
/// fail) are exactly the validator's.
struct MockConnectionValidator {
    /// The connection's rules; replaced once authentication is known.
    var validator = APNsRequestValidator() {
        didSet { self.template = nil }
    }

    private var reader = MockRequestFieldReader()
    /// The previous request's verdict when it was accepted (its token, `apns-id` and body size
    /// are replaced per request); nil after a rejection.
    private var template: APNsReceivedRequest?

    /// The verdict, and the request's `apns-id` bytes (echoed on rejections when well-formed).
    mutating func inspect(_ headers: HTTP2Headers, bodySize: Int) -> (APNsRequestValidator.Verdict, apnsID: [UInt8]?) {
        let read = self.reader.read(headers)
        if read.repeatsPrevious, let template = self.template,
            let request = Self.reuse(template, read, bodySize: bodySize)
        {
            return (.accepted(request), read.apnsID)
        }
        let verdict = self.validator.inspect(
            method: read.method, path: read.path, headers: read.allFields, bodySize: bodySize)
        if case .accepted(let request) = verdict {
            self.template = request
        } else {
            self.template = nil
        }
        return (verdict, read.apnsID)
    }

    /// `template` with this request's token, `apns-id` and body size, or nil when any of them
    /// (or the method) would be rejected.
    private static func reuse(
        _ template: APNsReceivedRequest, _ read: MockRequestFieldReader.Fields, bodySize: Int
    ) -> APNsReceivedRequest? {
        guard read.method == APNsRequest.method, !read.apnsIDRepeated else { return nil }
        guard bodySize > 0, bodySize <= template.pushType.maximumPayloadSize else { return nil }
        guard case .success(let token) = DeviceToken.parse(path: read.path) else { return nil }
        var request = template
        request.token = token
        request.bodySize = bodySize
        if let bytes = read.apnsID {
            guard let apnsID = APNsID(headerValue: bytes) else { return nil }
            request.apnsID = apnsID
        } else {
            request.apnsID = nil
        }
        return request
    }
}
