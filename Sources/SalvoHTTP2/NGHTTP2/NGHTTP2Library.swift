import CNGHTTP2

/// Facts about the libnghttp2 shared library this process loaded at run time.
public enum NGHTTP2Library {
    /// The version string of the loaded libnghttp2, e.g. `1.52.0`.
    public static var version: String {
        guard let info = nghttp2_version(0), let string = info.pointee.version_str else { return "unknown" }
        return String(cString: string)
    }
}
