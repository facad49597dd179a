/**
 * Logs: one JSON object per line on stdout, at the level `LOG_LEVEL` sets. Lines are built
 * directly (timestamp, level, the instance that wrote it, message, annotations, and the cause of
 * failures) and written once per turn of the event loop, so a busy server pays one write for many
 * request lines. The instance (`INSTANCE_ID`) is on every line, whichever fiber writes it: the
 * logs of several instances behind one balancer can be merged and still be told apart.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { AppConfig } from "../Config/AppConfig.js"
import { requestMetaIn } from "../Http/RequestMeta.js"

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

/**
 * A logger that can also take a line's annotations as a plain record (`logAt`), without the
 * HashMap and entry a `Logger` call is given: the request lifecycle writes one line per request.
 */
export interface JsonLogger extends Logger.Logger<unknown, void> {
  readonly record: (logLevel: LogLevel.LogLevel, message: string, annotations: Record<string, unknown>, date: Date) => void
}

const isJsonLogger = (logger: Logger.Logger<unknown, unknown>): logger is JsonLogger =>
  typeof (logger as Partial<JsonLogger>).record === "function"

export const makeJsonLogger = (instance: string, write: (text: string) => void) => {
  let pending: Array<string> = []
  const flush = () => {
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    write(text)
  }
  const push = (line: Record<string, unknown>) => {
    pending.push(JSON.stringify(line) + "\n")
    if (pending.length === 1) setImmediate(flush)
  }
  const logger = Logger.make<unknown, void>(({ annotations, cause, context, date, logLevel, message }) => {
    const line: Record<string, unknown> = {
      timestamp: date.toISOString(),
      logLevel: logLevel.label,
      instance,
      message: messageOf(message)
    }
    // a line written while serving a request names it (RequestLifecycle records its facts)
    const meta = requestMetaIn(FiberRefs.getOrDefault(context, FiberRef.currentContext))
    const requestId = meta !== undefined && !HashMap.has(annotations, "requestId") ? meta.requestId : undefined
    if (requestId !== undefined) line["annotations"] = { requestId, ...Object.fromEntries(annotations) }
    else if (HashMap.size(annotations) > 0) line["annotations"] = Object.fromEntries(annotations)
    if (!Cause.isEmpty(cause)) {
      const inner = innerMessageOf(cause)
      line["cause"] = inner === undefined ? Cause.pretty(cause) : `${Cause.pretty(cause)}\n[cause]: ${inner}`
    }
    push(line)
  })
  const json: JsonLogger = Object.assign(logger, {
    record: (logLevel: LogLevel.LogLevel, message: string, annotations: Record<string, unknown>, date: Date) =>
      push({ timestamp: date.toISOString(), logLevel: logLevel.label, instance, message, annotations })
  })
  return { logger: json, flush }
}

/**
 * Writes one line through the fiber's loggers at once, as `Effect.log` would, with `annotations`
 * added to the fiber's own: for the request lifecycle's line, without the fiber steps and
 * FiberRef copies of `Effect.annotateLogs` on every request. The service's JSON logger takes the
 * record as it is; another logger gets the entry `Effect.log` would give it. `annotationsOf` runs
 * only when the level is logged.
 */
export const logAt = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  level: LogLevel.LogLevel,
  message: string,
  annotationsOf: () => Record<string, unknown>
): void => {
  if (LogLevel.greaterThan(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), level)) return
  const loggers = fiber.getFiberRef(FiberRef.currentLoggers)
  if (HashSet.size(loggers) === 0) return
  const own = fiber.getFiberRef(FiberRef.currentLogAnnotations)
  const record = HashMap.size(own) === 0 ? annotationsOf() : { ...Object.fromEntries(own), ...annotationsOf() }
  const date = new Date(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
  for (const logger of loggers) {
    if (isJsonLogger(logger)) {
      logger.record(level, message, record, date)
      continue
    }
    let annotations = own
    for (const [key, value] of Object.entries(record)) annotations = HashMap.set(annotations, key, value)
    logger.log({
      fiberId: fiber.id(),
      logLevel: level,
      message,
      cause: Cause.empty,
      context: fiber.getFiberRefs(),
      spans: fiber.getFiberRef(FiberRef.currentLogSpan),
      annotations,
      date
    })
  }
}

export const LoggingLive = Layer.unwrapScoped(Effect.gen(function*() {
  const { instanceId, logLevel } = yield* AppConfig
  const { flush, logger } = makeJsonLogger(instanceId, (text) => process.stdout.write(text))
  // whatever is still buffered when the process ends is written then
  process.once("exit", flush)
  // a layer released before the process ends (a test's server) writes its rest and stops listening
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      process.off("exit", flush)
      flush()
    })
  )
  return Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, logger),
    // the logger that copies lines into spans: the service exports no spans (Server.ts), so it
    // would build every line's entry for nothing
    Logger.remove(Logger.tracerLogger),
    Logger.minimumLogLevel(logLevel)
  )
}))
