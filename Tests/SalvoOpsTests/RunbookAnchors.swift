/// The anchors a Markdown renderer (GitHub's) gives the headings of ops/RUNBOOK.md: lower case,
/// punctuation dropped, spaces as hyphens ("An APNs brownout" → `an-apns-brownout`).
struct RunbookAnchors {
    let anchors: [String]

    init(markdown: String) {
        anchors = markdown.split(separator: "\n").filter { $0.hasPrefix("#") }.map { line in
            let title = line.drop { $0 == "#" }.trimmingPrefix(" ")
            return String(
                title.lowercased().compactMap { character -> Character? in
                    if character == " " { return "-" }
                    return character.isLetter || character.isNumber || character == "-" || character == "_"
                        ? character : nil
                })
        }
    }

    func contains(_ anchor: String) -> Bool { anchors.contains(anchor) }
}
