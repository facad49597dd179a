/**
 * Logs: one JSON object per line on stdout, at the level `LOG_LEVEL` sets. Lines are built
 * directly (timestamp, level, message, annotations, and the cause of failures) and written once
 * per turn of the event loop, so a busy server pays one write for many request lines.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { AppConfig } from "./Config/AppConfig.js"

/**
 * The message of what caused the failure or defect, if it is an error: a driver's refusal wrapped
 * in a `SqlError` ("duplicate key value violates unique constraint …") belongs in the line.
 */
const innerMessageOf = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const error of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    const inner = typeof error === "object" && error !== null ? (error as { readonly cause?: unknown }).cause : undefined
    if (inner instanceof Error && inner.message !== "") return inner.message
  }
  return undefined
}

const messageOf = (message: unknown) =>
  Array.isArray(message) ? (message.length === 1 ? message[0] : message) : message

export const makeJsonLogger = (write: (text: string) => void) => {
  let pending: Array<string> = []
  const flush = () => {
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    write(text)
  }
  const logger = Logger.make<unknown, void>(({ annotations, cause, date, logLevel, message }) => {
    const line: Record<string, unknown> = {
      timestamp: date.toISOString(),
      logLevel: logLevel.label,
      message: messageOf(message)
    }
    if (HashMap.size(annotations) > 0) line["annotations"] = Object.fromEntries(annotations)
    if (!Cause.isEmpty(cause)) {
      const inner = innerMessageOf(cause)
      line["cause"] = inner === undefined ? Cause.pretty(cause) : `${Cause.pretty(cause)}\n[cause]: ${inner}`
    }
    pending.push(JSON.stringify(line) + "\n")
    if (pending.length === 1) setImmediate(flush)
  })
  return { logger, flush }
}

export const LoggingLive = Layer.unwrapScoped(Effect.gen(function*() {
  const { logLevel } = yield* AppConfig
  const { flush, logger } = makeJsonLogger((text) => process.stdout.write(text))
  // whatever is still buffered when the process ends is written then
  process.once("exit", flush)
  yield* Effect.addFinalizer(() => Effect.sync(flush))
  return Layer.mergeAll(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(logLevel))
}))
