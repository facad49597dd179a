import { createServer } from "node:net"

/** A TCP port on 127.0.0.1 that was free a moment ago: for servers a test starts as processes of their own. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
