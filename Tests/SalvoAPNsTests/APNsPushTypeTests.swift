import SalvoAPNs
import Testing

@Suite struct APNsPushTypeTests {
    static let bundle = "com.example.app"

    /// Apple's topic rule per type: the suffix appended to the bundle id (nil: the topic is free).
    static let suffixes: [(APNsPushType, String?)] = [
        (.alert, nil), (.background, nil), (.mdm, nil),
        (.location, ".location-query"), (.voip, ".voip"), (.complication, ".complication"),
        (.fileprovider, ".pushkit.fileprovider"), (.liveactivity, ".push-type.liveactivity"),
        (.pushtotalk, ".voip-ptt"), (.widgets, ".push-type.widgets"), (.controls, ".push-type.controls"),
    ]

    @Test func everyTypeHasItsDocumentedSuffix() {
        #expect(Self.suffixes.count == APNsPushType.allCases.count)
        for (type, suffix) in Self.suffixes {
            #expect(type.topicSuffix == suffix, "\(type)")
        }
    }

    @Test(arguments: APNsPushType.allCases)
    func topicRuleAcceptsTheSuffixedBundleAndRejectsTheBareOne(type: APNsPushType) throws {
        let priority = type.allowedPriorities.contains(.immediate) ? APNsPriority.immediate : .powerConsiderate
        let topic = try type.topic(forBundleID: Self.bundle)
        #expect(type.violation(topic: topic, priority: priority) == nil)
        if let suffix = type.topicSuffix {
            #expect(type.violation(topic: try APNsTopic(Self.bundle), priority: priority) == .badTopic)
            // The suffix alone has no bundle id in front of it.
            #expect(type.violation(topic: try APNsTopic(suffix), priority: priority) == .badTopic)
        }
    }

    @Test func priorityRules() {
        #expect(APNsPushType.background.allowedPriorities == [.powerConsiderate])
        #expect(APNsPushType.location.allowedPriorities == [.immediate, .powerConsiderate])
        #expect(APNsPushType.pushtotalk.allowedPriorities == [.immediate])
        for type in APNsPushType.allCases where ![.background, .location, .pushtotalk].contains(type) {
            #expect(type.allowedPriorities == Set(APNsPriority.allCases), "\(type)")
        }
        #expect(APNsPushType.background.violation(topic: "com.example.app", priority: .immediate) == .badPriority)
        #expect(
            APNsPushType.location.violation(topic: "com.example.app.location-query", priority: .low) == .badPriority)
        #expect(
            APNsPushType.pushtotalk.violation(topic: "com.example.app.voip-ptt", priority: .powerConsiderate)
                == .badPriority)
    }

    @Test func payloadLimits() {
        #expect(APNsPushType.voip.maximumPayloadSize == 5120)
        for type in APNsPushType.allCases where type != .voip {
            #expect(type.maximumPayloadSize == 4096)
        }
    }

    @Test func headerValuesRoundTrip() {
        for type in APNsPushType.allCases {
            #expect(String(decoding: type.headerValue, as: UTF8.self) == type.rawValue)
            #expect(APNsPushType(headerValue: type.headerValue) == type)
        }
        #expect(APNsPushType(headerValue: Array("ALERT".utf8)) == .alert)
        #expect(APNsPushType(headerValue: Array("banner".utf8)) == nil)
    }

    @Test func inferenceFromTopic() {
        #expect(APNsPushType.inferred(fromTopic: "com.example.app") == .alert)
        #expect(APNsPushType.inferred(fromTopic: "com.example.app.voip") == .voip)
        #expect(APNsPushType.inferred(fromTopic: "com.example.app.voip-ptt") == .pushtotalk)
        #expect(APNsPushType.inferred(fromTopic: "com.example.app.push-type.liveactivity") == .liveactivity)
    }
}
