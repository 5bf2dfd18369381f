import Foundation
import SalvoTestSupport
import Testing

/// docs/cli.md and the binary agree: the exit-status table is the one `salvo --help` prints from
/// the code's own table, and both version spellings print the loaded libraries.
@Suite("The CLI reference")
struct CLIDocumentationTests {
    /// `| 64 | usage (EX_USAGE) | … |` rows of the section `heading` in docs/cli.md.
    static func documentedStatuses() throws -> [String] {
        let text = try RepositoryFiles.text("docs/cli.md")
        let section = try #require(text.components(separatedBy: "## Exit status").last)
        return section.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, Int(cells[0]) != nil else { return nil }
            return "\(cells[0]) \(cells[1])"
        }
    }

    /// `  64  usage (EX_USAGE)` lines `salvo --help` prints (CommandExit's table).
    static func printedStatuses() async throws -> [String] {
        let help = try await CommandRunner.salvo(["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        return help.stdoutText.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), let code = line.split(separator: " ").first, Int(code) != nil else {
                return nil
            }
            let name = line.dropFirst(2).drop(while: { $0 != " " }).drop(while: { $0 == " " })
            return "\(code) \(name)"
        }
    }

    @Test("docs/cli.md's exit-status table is the code's table, row for row")
    func exitTableMatchesCode() async throws {
        let documented = try Self.documentedStatuses()
        let printed = try await Self.printedStatuses()
        #expect(printed.count == 8, "\(printed)")
        #expect(documented == printed)
    }

    @Test("salvo --version and salvo version print salvo's, librdkafka's and libnghttp2's versions")
    func versions() async throws {
        let flag = try await CommandRunner.salvo(["--version"])
        let command = try await CommandRunner.salvo(["version"])
        #expect(flag.status == 0 && command.status == 0)
        #expect(flag.stdoutText == command.stdoutText)
        let lines = flag.stdoutText.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) }
        #expect(lines == ["salvo", "librdkafka", "libnghttp2"], "\(flag.stdoutText)")
    }

    @Test("with Debian 12's librdkafka 2.0.2 loaded, salvo version warns that it is older than 2.3")
    func versionWarnsBelowTheMinimum() async throws {
        // An empty LD_LIBRARY_PATH: the dynamic linker loads the system's librdkafka.so.1.
        let debian = try await ExternalProcess.run(
            ExternalProcess.salvoExecutable(), ["version"], environment: ["LD_LIBRARY_PATH": ""])
        #expect(debian.status == 0)
        let version = debian.stdoutText.split(separator: "\n").first { $0.hasPrefix("librdkafka ") } ?? ""
        if version.hasPrefix("librdkafka 2.0.") || version.hasPrefix("librdkafka 2.1.")
            || version.hasPrefix("librdkafka 2.2.")
        {
            #expect(
                debian.stdoutText.contains("warning: librdkafka 2.")
                    && debian.stdoutText.contains("older than the 2.3.0"),
                "\(debian.stdoutText)")
        } else {
            #expect(!debian.stdoutText.contains("warning:"), "\(debian.stdoutText)")
        }
    }

    @Test("no command takes a password on the command line")
    func noSecretFlags() async throws {
        for command in [["send"], ["channels", "list"], ["campaign", "cancel"], ["enqueue"], ["loadtest"]] {
            let help = try await CommandRunner.salvo(command + ["--help"])
            let flags = help.stdoutText.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "[" || $0 == "]" })
                .filter { $0.hasPrefix("--") }
            for flag in flags where flag.contains("password") {
                #expect(flag.hasSuffix("-file") || flag.hasSuffix("-env"), "\(command): \(flag)")
            }
            #expect(!flags.contains("--password"), "\(command)")
        }
    }

    @Test("every Kafka command takes --kafka-config and --brokers with the same help")
    func kafkaFlagsEverywhere() async throws {
        var helps: Set<String> = []
        for command in [
            ["campaign", "cancel"], ["campaign", "pause"], ["campaign", "resume"], ["campaign", "status"],
            ["enqueue"], ["loadtest"], ["demo"], ["bench", "kafka"], ["bench", "worker"], ["bench", "latency"],
            ["topics", "create"], ["topics", "check"],
        ] {
            let help = try await CommandRunner.salvo(command + ["--help"]).stdoutText
            let start = try #require(help.range(of: "  --kafka-config <file>"), "\(command)")
            let end = try #require(help.range(of: "SALVO_KAFKA_BROKERS.", range: start.upperBound..<help.endIndex))
            helps.insert(String(help[start.lowerBound..<end.upperBound]))
        }
        #expect(helps.count == 1, "\(helps)")
    }
}
