import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Private-key files (`.p8` signing keys, PEM keys, PKCS#12 bundles) that other users of the
/// machine can read. Whoever reads a `.p8` can push to every app of the team for as long as the key
/// is not revoked, so the loader warns (`--check-config` prints it, the worker logs it at start)
/// rather than refusing: a shared group on purpose is the operator's call. Kubernetes mounts
/// secrets 0644 unless `defaultMode` says otherwise (`ops/kubernetes` asks for 0400).
///
/// A file its group may read is accepted when that group is the worker's own: with `fsGroup`,
/// Kubernetes gives a secret's files to the pod's group and adds the group's read bit (a
/// `defaultMode` of 0400 arrives as 0440, owned by root), and the only process in that group is
/// the worker itself.
enum KeyFilePermissions {
    /// The warning for the key file at `path` (named `key` in the YAML), or nil when only its owner
    /// (and the worker's own group) can read it or it cannot be examined (then loading it reports
    /// the problem). Symbolic links are followed: Kubernetes mounts each secret as a link into a
    /// timestamped directory.
    static func warning(path: String, key: String, ownGroups: Set<UInt32> = processGroups()) -> String? {
        // FileManager reads the entry itself (lstat): resolve the links first.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: target),
            let permissions = attributes[.posixPermissions] as? NSNumber,
            let group = attributes[.groupOwnerAccountID] as? NSNumber
        else { return nil }
        let mode = permissions.intValue & 0o777
        let foreignGroupReads = mode & 0o040 != 0 && !ownGroups.contains(group.uint32Value)
        guard foreignGroupReads || mode & 0o004 != 0 else { return nil }
        let octal = String(mode, radix: 8)
        let readers = [foreignGroupReads ? "its group" : nil, mode & 0o004 != 0 ? "every user" : nil].compactMap { $0 }
        return
            "\(key): \(path) is readable by \(readers.joined(separator: " and ")) (mode 0\(String(repeating: "0", count: 3 - octal.count) + octal)); "
            + "a private key should be readable by its owner only (chmod 600)"
    }

    /// The process's effective group and its supplementary groups.
    static func processGroups() -> Set<UInt32> {
        var groups: Set<UInt32> = [UInt32(getegid())]
        let count = getgroups(0, nil)
        guard count > 0 else { return groups }
        var list = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &list)
        if filled > 0 { groups.formUnion(list.prefix(Int(filled)).map { UInt32($0) }) }
        return groups
    }

    /// Every private-key file of `section` (named `apps.<name>` in the YAML) that others can read.
    static func warnings(
        app name: String, _ section: WorkerConfigurationFile.App, resolve: (String) -> String
    ) -> [String] {
        let path = "apps.\(name).credential"
        var files: [(key: String, path: String?)] = []
        switch section.credential {
        case .token(let token):
            files.append(("\(path).token.key_file", token.keyFile))
        case .certificate(let certificate):
            files.append(("\(path).certificate.pkcs12_file", certificate.pkcs12File))
            files.append(("\(path).certificate.key_file", certificate.keyFile))
            files.append(("\(path).certificate.password_file", certificate.passwordFile))
        }
        return files.compactMap { key, file in file.flatMap { warning(path: resolve($0), key: key) } }
    }
}
