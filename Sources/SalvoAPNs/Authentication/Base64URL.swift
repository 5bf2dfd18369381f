/// Base64url without padding (RFC 4648 §5), the encoding JWT (RFC 7515) prescribes. Foundation's
/// encoder would need two replacements and a trim per segment; this writes the alphabet directly.
enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if third != nil { output.append(alphabet[Int(group & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
