// Sends one notification with SalvoAPNs, as an application that depends on Salvo would: a token
// credential (a .p8 key), TLS verified against the CA it is given, one connection.
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SalvoAPNs

func sendOne(on group: any EventLoopGroup) async -> Int32 {
    do {
        let options = try SendOneOptions(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        let credential = try APNsTokenCredential.load(
            p8Path: options.keyFile, keyID: options.keyID, teamID: options.teamID)
        var configuration = APNsConnectionPool.Configuration()
        configuration.connectionCount = 1
        configuration.connection.transport = .tls(trustRoots: .file(options.caFile))
        let client = try APNsClient(configuration: configuration, eventLoopGroup: group)
        let request = try APNsRequest(
            token: DeviceToken(hex: options.token), topic: APNsTopic(options.topic), pushType: .alert,
            payload: ByteBuffer(string: options.payload))
        let outcome = await client.send(
            request, credential: .token(credential),
            environment: .custom(host: options.host, port: options.port, behavesAs: .sandbox))
        await client.shutdown()
        switch outcome {
        case .accepted(let apnsID, _):
            print("accepted \(apnsID.map { "\($0)" } ?? "(no apns-id)")")
            return 0
        case .rejected(let response):
            printError("rejected: \(response)")
        case .failed(let error):
            printError("not sent: \(error)")
        }
    } catch {
        printError("\(error)")
    }
    return 1
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let status = await sendOne(on: group)
try? await group.shutdownGracefully()
exit(status)
