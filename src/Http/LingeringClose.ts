/**
 * An answer sent before its request's body has all arrived (413 for a body over its limit, 408 for
 * one too slow, or any answer that did not need the body) must reach the client as an answer, never
 * as a reset connection (CONTRACT §3). A server that closes its socket while the client is still
 * sending makes the client's system answer the next bytes with a reset, and the client then sees
 * `EPIPE` or `ECONNRESET`, often before it has read the answer waiting for it. Node closes that way
 * after an answer that ends the connection (`Connection: close`, sent for a 408 and whenever the
 * client asked for it).
 *
 * So the server lingers, as HTTP servers do ("lingering close"): after such an answer it shuts
 * its side for writing (the client reads the answer and then the end of the stream), goes on
 * reading the rest of the body and discarding it, and destroys the socket only once the body has
 * ended, or `LINGER_TIME` has passed, or `LINGER_STALL` without a byte, or more than
 * `LINGER_BYTES` were discarded. An answer on a connection that stays open (keep-alive) reads and
 * discards the rest of the body in the same way, within the same bounds, before the next request.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** The longest time a body's rest is discarded after its answer. */
export const LINGER_TIME_MS = 15_000
/**
 * The longest pause between two of its bytes (nginx's `lingering_timeout`): long enough that an
 * event loop busy for a moment does not take its own delay for the client's.
 */
export const LINGER_STALL_MS = 5_000
/** The most bytes of it discarded (a 10 MiB import refused 413 and more to spare). */
export const LINGER_BYTES = 16 * 1024 * 1024

const lingerAfter = (request: IncomingMessage, socket: Socket, closing: () => boolean) => {
  let discarded = 0
  let done = false
  const end = (destroy: boolean) => {
    if (done) return
    done = true
    clearTimeout(total)
    clearTimeout(stall)
    // a connection that stays open serves more requests: nothing of this one stays on it
    request.off("data", onData)
    request.off("end", ended)
    request.off("close", ended)
    socket.off("close", closed)
    if (destroy) socket.destroy()
  }
  const cut = () => end(true)
  const total = setTimeout(cut, LINGER_TIME_MS).unref()
  const stall = setTimeout(cut, LINGER_STALL_MS).unref()
  const onData = (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > LINGER_BYTES) cut()
    else stall.refresh()
  }
  // the body ended: a connection that stays open goes on with its next request, one that closes ends now
  const ended = () => end(closing())
  const closed = () => end(false)
  request.on("data", onData)
  request.once("end", ended)
  request.once("close", ended)
  socket.once("close", closed)
  request.resume()
}

/**
 * Makes the connection of `request` linger once `response` is sent, if the request's body has not
 * all arrived by then (see above). Called for every request, when it arrives.
 */
export const lingerWhenAnswered = (request: IncomingMessage, response: ServerResponse): void => {
  const socket = request.socket
  let closing = false
  // Node ends a connection after its answer with `socket.destroySoon()` (ending it for writing,
  // destroying it as soon as that is done), before the answer's other "finish" listeners run:
  // while the body is still arriving, the socket is only ended for writing, and destroyed below
  const destroySoon = Object.getPrototypeOf(socket).destroySoon as Socket["destroySoon"]
  socket.destroySoon = function(this: Socket) {
    if (request.complete) return destroySoon.call(this)
    closing = true
    this.end()
  }
  response.once("finish", () => {
    if (!request.complete && !socket.destroyed) lingerAfter(request, socket, () => closing)
  })
}
