/** Structured JSON log lines on stdout, at the level `LOG_LEVEL` sets. */
import { Effect, Layer, Logger } from "effect"
import { AppConfig } from "./Config/AppConfig.js"

export const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, ({ logLevel }) => Layer.mergeAll(Logger.json, Logger.minimumLogLevel(logLevel)))
)
