extension String {
    /// The text of a NUL-terminated buffer a C function filled (librdkafka's `errstr`,
    /// `gethostname`'s name): the bytes up to the first NUL, as UTF-8 with invalid bytes replaced.
    package init(cCharBuffer buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
