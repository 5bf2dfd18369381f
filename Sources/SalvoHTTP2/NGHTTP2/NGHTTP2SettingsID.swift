import CNGHTTP2

/// A SETTINGS parameter identifier, spelled once instead of casting nghttp2's C enum at every use.
struct NGHTTP2SettingsID: Hashable {
    var rawValue: Int32

    static let headerTableSize = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue))
    static let enablePush = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue))
    static let maxConcurrentStreams = NGHTTP2SettingsID(
        rawValue: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue))
    static let initialWindowSize = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue))
    static let maxFrameSize = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue))
    static let maxHeaderListSize = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue))
    static let noRFC7540Priorities = NGHTTP2SettingsID(rawValue: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue))
}
