import Foundation

/// Reading the small JSON objects of the campaign topics. They are rare (a command per operator
/// action, a progress record per campaign and worker every few seconds), so Foundation's parser
/// is used rather than the job decoder's hand-written scanner.
enum CampaignRecordJSON {
    static func object(_ value: [UInt8], what: String) throws(CampaignRecordError) -> [String: Any] {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(value)), let object = parsed as? [String: Any]
        else {
            throw CampaignRecordError("\(what) is not a JSON object")
        }
        return object
    }

    static func version(_ object: [String: Any], what: String) throws(CampaignRecordError) -> Int64 {
        let version = try integer(object, "version", what: what)
        // Newer versions only add members, so their records are read as far as this one knows
        // them; a version below 1 was never written.
        guard version >= 1 else { throw CampaignRecordError("\(what) has version \(version), expected 1…") }
        return version
    }

    static func string(_ object: [String: Any], _ name: String, what: String) throws(CampaignRecordError) -> String {
        guard let value = object[name] as? String else { throw CampaignRecordError("\(what) lacks the string \(name)") }
        return value
    }

    static func integer(_ object: [String: Any], _ name: String, what: String) throws(CampaignRecordError) -> Int64 {
        guard let value = object[name].flatMap(integer) else {
            throw CampaignRecordError("\(what) lacks the integer \(name)")
        }
        return value
    }

    /// A JSON number that is a whole number within Int64, else nil.
    static func integer(_ value: Any) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        return Int64(exactly: number.doubleValue)
    }

    /// A campaign id as jobs carry it (schema/job.schema.json): 1–256 UTF-8 bytes, no control
    /// characters.
    static func isValidCampaignID(_ id: String) -> Bool {
        (1...256).contains(id.utf8.count) && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
