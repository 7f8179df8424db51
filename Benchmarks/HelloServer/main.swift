// The ceilings for `locsim serve` on this machine, run by scripts/bench-serve.sh beside it so the
// rates come from one run:
//
//   HelloServer PORT [LOOPS]    a bare Hummingbird 2 server answering `GET /hello` with `ok`, no
//                               log, no metrics, no audit: the HTTP/1.1 stack `locsim serve` is
//                               built on, with its defaults. With LOOPS, Swift's tasks run on NIO's
//                               event loops (LOOPS of them); without, Hummingbird's defaults.
//   HelloServer PORT nio LOOPS  the same answer from SwiftNIO's HTTP/1.1 pipeline alone (NIOHTTP1's
//                               codec and one handler on LOOPS event loops, no Hummingbird): the
//                               floor of any server on SwiftNIO here.
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
let usage = "usage: HelloServer PORT [LOOPS] | HelloServer PORT nio LOOPS"
guard (2...4).contains(arguments.count), let port = Int(arguments[1]), (1...65_535).contains(port) else {
    print(usage)
    exit(2)
}

/// Answers every request with `ok` once its end has arrived, keeping the connection open.
final class NIOHello: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var body = context.channel.allocator.buffer(capacity: 3)
        body.writeString("ok\n")
        let head = HTTPResponseHead(
            version: .http1_1, status: .ok,
            headers: ["content-length": "3", "content-type": "text/plain; charset=utf-8", "server": "hello"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

if arguments.count == 4 {
    guard arguments[2] == "nio", let loops = Int(arguments[3]), loops >= 1 else {
        print(usage)
        exit(2)
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
    let channel = try await ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(NIOHello())
            }
        }
        .bind(host: "127.0.0.1", port: port).get()
    try await channel.closeFuture.get()
    exit(0)
}

if arguments.count == 3 {
    guard let loops = Int(arguments[2]) else {
        print(usage)
        exit(2)
    }
    NIOSingletons.groupLoopCountSuggestion = max(1, loops)
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        print("HelloServer: cannot run tasks on NIO's event loops here")
        exit(1)
    }
}
let router = Router()
router.get("hello") { _, _ in "ok\n" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hello"))
try await app.runService()
