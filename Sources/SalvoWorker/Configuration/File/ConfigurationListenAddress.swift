/// `host:port` (or `[v6]:port`) for the operations listener.
enum ConfigurationListenAddress {
    /// What a bad address is told.
    static func rule(_ text: String) -> String {
        "\"\(text)\" is not a listen address: write host:port (port 0…65535, 0 picks a free port), e.g. 0.0.0.0:9100 or [::1]:9100"
    }

    static func parse(_ text: String) -> WorkerOperationsListener? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace), port.allSatisfy(\.isASCII), let number = Int(port),
            (0...65_535).contains(number)
        else { return nil }
        return WorkerOperationsListener(host: String(host), port: number)
    }
}
