/**
 * A TCP proxy on loopback for tests that cut one process off from a server (a network cut): while
 * `cut`, the proxy forwards nothing either way, and holds what it receives, as a network that drops
 * packets holds a connection open with nothing arriving (no reset, no error: statements simply get
 * no answer); new connections are accepted and wait too. `heal` forwards what was held and goes on.
 */
import { Effect } from "effect"
import { connect, createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: Effect.Effect<void>
  readonly heal: Effect.Effect<void>
}

/** A proxy to `127.0.0.1:<targetPort>` for the scope. */
export const tcpProxy = (targetPort: number) =>
  Effect.gen(function*() {
    let cut = false
    /** What arrived during the cut, per destination socket, in order. */
    const held = new Map<Socket, Array<Buffer>>()
    const sockets = new Set<Socket>()
    const forward = (from: Socket, to: Socket) => {
      from.on("data", (chunk: Buffer) => {
        if (cut) held.set(to, [...(held.get(to) ?? []), chunk])
        else to.write(chunk)
      })
      from.on("close", () => to.destroy())
      from.on("error", () => to.destroy())
    }
    const server = createServer((client) => {
      const upstream = connect(targetPort, "127.0.0.1")
      sockets.add(client)
      sockets.add(upstream)
      client.on("close", () => sockets.delete(client))
      upstream.on("close", () => sockets.delete(upstream))
      forward(client, upstream)
      forward(upstream, client)
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    const self: TcpProxy = {
      port: (server.address() as AddressInfo).port,
      cut: Effect.sync(() => {
        cut = true
      }),
      heal: Effect.sync(() => {
        cut = false
        for (const [to, chunks] of held) {
          if (!to.destroyed) for (const chunk of chunks) to.write(chunk)
        }
        held.clear()
      })
    }
    return self
  })
