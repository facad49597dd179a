/**
 * The service's configuration (the variables README.md lists under "Configuration"), read once at start through Effect `Config`, so a bad
 * value stops start-up before anything listens. Tests supply their own `ConfigProvider`.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { hostname } from "node:os"
import { type EmailSettings, parseMailFrom, smtpUrlProblem } from "./EmailSettings.js"
import { noTrustedProxies, parseTrustedProxies } from "./TrustedProxies.js"
import * as Env from "./Env.js"
import { parsePublicBaseUrl } from "./PublicBaseUrl.js"

export type { AppConfigShape, Bootstrap, PayloadVariant } from "./AppConfigShape.js"
import type { AppConfigShape, Bootstrap, PayloadVariant } from "./AppConfigShape.js"

export const API_TOKEN_PATTERN = /^cvn_[A-Za-z0-9_-]{32,}$/
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

const logLevels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

const logLevel = Env.literal("LOG_LEVEL", "Info", ["Trace", "Debug", "Info", "Warn", "Error", "None"]).pipe(
  Config.map((name) => logLevels[name.toLowerCase()]!)
)

const publicBaseUrl = Env.optionalString("PUBLIC_BASE_URL").pipe(
  Config.mapOrFail(Option.match({
    onNone: () => Either.right(Option.none<string>()),
    onSome: (value) => {
      const parsed = parsePublicBaseUrl(value)
      return "ok" in parsed
        ? Either.right(Option.some(parsed.ok))
        : Either.left(ConfigError.InvalidData(["PUBLIC_BASE_URL"], `PUBLIC_BASE_URL ${parsed.problem} (got ${JSON.stringify(value)})`))
    }
  }))
)

const trustedProxies = Env.optionalString("TRUSTED_PROXIES").pipe(
  Config.mapOrFail(Option.match({
    onNone: () => Either.right(noTrustedProxies),
    onSome: (value) => {
      const parsed = parseTrustedProxies(value)
      return typeof parsed === "string"
        ? Either.left(ConfigError.InvalidData(
          ["TRUSTED_PROXIES"],
          `TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (got ${JSON.stringify(parsed)})`
        ))
        : Either.right(parsed)
    }
  }))
)

const bootstrap = Config.all({
  orgSlug: Env.optionalString("BOOTSTRAP_ORG_SLUG"),
  orgName: Env.optionalString("BOOTSTRAP_ORG_NAME"),
  adminEmail: Env.optionalString("BOOTSTRAP_ADMIN_EMAIL"),
  adminPassword: Env.optionalSecret("BOOTSTRAP_ADMIN_PASSWORD"),
  apiToken: Env.optionalSecret("BOOTSTRAP_API_TOKEN")
}).pipe(Config.mapOrFail((b): Either.Either<Option.Option<Bootstrap>, ConfigError.ConfigError> => {
  const invalid = (name: string, message: string) => Either.left(ConfigError.InvalidData([name], `${name} ${message}`))
  const anyOther = Option.isSome(b.orgName) || Option.isSome(b.adminEmail) || Option.isSome(b.adminPassword) ||
    Option.isSome(b.apiToken)
  if (Option.isNone(b.orgSlug)) {
    return anyOther ? invalid("BOOTSTRAP_ORG_SLUG", "must be set when other BOOTSTRAP_* variables are") : Either.right(Option.none())
  }
  const orgSlug = b.orgSlug.value
  if (!SLUG_PATTERN.test(orgSlug)) {
    return invalid("BOOTSTRAP_ORG_SLUG", `must be lowercase letters, digits and inner hyphens (got ${JSON.stringify(orgSlug)})`)
  }
  if (Option.isSome(b.adminEmail) !== Option.isSome(b.adminPassword)) {
    return Option.isSome(b.adminEmail)
      ? invalid("BOOTSTRAP_ADMIN_PASSWORD", "must be set with BOOTSTRAP_ADMIN_EMAIL")
      : invalid("BOOTSTRAP_ADMIN_EMAIL", "must be set with BOOTSTRAP_ADMIN_PASSWORD")
  }
  if (Option.isSome(b.adminEmail) && !/^[^\s@]+@[^\s@]+$/.test(b.adminEmail.value)) {
    return invalid("BOOTSTRAP_ADMIN_EMAIL", `must be an email address (got ${JSON.stringify(b.adminEmail.value)})`)
  }
  if (Option.isSome(b.adminPassword) && Redacted.value(b.adminPassword.value).length < 8) {
    return invalid("BOOTSTRAP_ADMIN_PASSWORD", "must be at least 8 characters")
  }
  if (Option.isSome(b.apiToken) && !API_TOKEN_PATTERN.test(Redacted.value(b.apiToken.value))) {
    return invalid("BOOTSTRAP_API_TOKEN", "must be cvn_ followed by at least 32 URL-safe characters")
  }
  return Either.right(Option.some({
    orgSlug,
    orgName: Option.getOrElse(b.orgName, () => orgSlug),
    admin: Option.zipWith(b.adminEmail, b.adminPassword, (email, password) => ({ email, password })),
    apiToken: b.apiToken
  }))
}))

/**
 * A secret URL of another service, or unset (empty counts as unset): it must parse, have a host
 * and one of `protocols`; otherwise start-up stops with `problem`.
 */
const serviceUrl = (name: string, protocols: ReadonlyArray<string>, problem: string) =>
  Env.optionalSecret(name).pipe(
    Config.mapOrFail((url): Either.Either<Option.Option<Redacted.Redacted>, ConfigError.ConfigError> => {
      if (Option.isNone(url)) return Either.right(url)
      const text = Redacted.value(url.value).trim()
      if (text === "") return Either.right(Option.none())
      let parsed: URL | undefined
      try {
        parsed = new URL(text)
      } catch {
        parsed = undefined
      }
      return parsed !== undefined && protocols.includes(parsed.protocol) && parsed.hostname !== ""
        ? Either.right(Option.some(Redacted.make(text)))
        : Either.left(ConfigError.InvalidData([name], problem))
    })
  )

/** `DATABASE_URL`: a `postgres://` or `postgresql://` URL with a host, or unset. */
const databaseUrl = serviceUrl(
  "DATABASE_URL",
  ["postgres:", "postgresql:"],
  "DATABASE_URL must be a postgres:// URL such as postgres://convene:secret@localhost:5432/convene"
)

/** `REDIS_URL`: a `redis://` or `rediss://` URL with a host, or unset. */
const redisUrl = serviceUrl(
  "REDIS_URL",
  ["redis:", "rediss:"],
  "REDIS_URL must be a redis:// or rediss:// URL such as redis://localhost:6379"
)

/** `OTEL_EXPORTER_OTLP_ENDPOINT`: an http:// or https:// URL (the collector's base; traces go to `/v1/traces`), or unset. */
const otlpEndpoint = serviceUrl(
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  ["http:", "https:"],
  "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL such as http://localhost:4318"
).pipe(Config.map(Option.map((url) => Redacted.value(url).replace(/\/+$/, ""))))

const email = Config.all({
  smtpUrl: Env.optionalSecret("SMTP_URL"),
  from: Env.optionalString("MAIL_FROM")
}).pipe(Config.mapOrFail(({ from, smtpUrl }): Either.Either<Option.Option<EmailSettings>, ConfigError.ConfigError> => {
  const invalid = (name: string, message: string) => Either.left(ConfigError.InvalidData([name], `${name} ${message}`))
  if (Option.isNone(smtpUrl) && Option.isNone(from)) return Either.right(Option.none())
  if (Option.isNone(from)) return invalid("MAIL_FROM", "must be set with SMTP_URL (the sender of every email)")
  if (Option.isNone(smtpUrl)) return invalid("SMTP_URL", "must be set with MAIL_FROM (where emails are sent through)")
  const problem = smtpUrlProblem(Redacted.value(smtpUrl.value).trim())
  if (problem !== undefined) return invalid("SMTP_URL", problem)
  const sender = parseMailFrom(from.value)
  if (typeof sender === "string") return invalid("MAIL_FROM", `${sender} (got ${JSON.stringify(from.value)})`)
  return Either.right(Option.some({ smtpUrl: smtpUrl.value, from: from.value, fromAddress: sender.address, fromName: sender.name }))
}))

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  port: Env.integer("PORT", 3000, 0, 65535),
  host: Env.string("HOST", "0.0.0.0"),
  databasePath: Env.string("DATABASE_PATH", "./data/convene.db"),
  databaseUrl,
  databasePool: Config.all({
    // two connections at most are writers' (Db/Postgres.ts): reads and the outbox need the others
    size: Env.integer("DATABASE_POOL_SIZE", 10, 4, 1000),
    acquireTimeout: Env.duration("DATABASE_ACQUIRE_TIMEOUT", "5 seconds"),
    mode: Env.literal("DATABASE_POOL_MODE", "session", ["session", "transaction"])
  }),
  publicBaseUrl,
  bootstrap,
  accessTokenTtl: Env.duration("ACCESS_TOKEN_TTL", "24 hours"),
  sessionIdleTimeout: Env.duration("SESSION_IDLE_TIMEOUT", "12 hours"),
  rateLimit: Config.all({
    burst: Env.integer("RATE_LIMIT_BURST", 20, 1, 1_000_000),
    perSecond: Env.positiveNumber("RATE_LIMIT_PER_SECOND", 1.5),
    bulkBurst: Env.integer("BULK_RATE_LIMIT_BURST", 5, 1, 1_000_000),
    bulkPerMinute: Env.positiveNumber("BULK_RATE_LIMIT_PER_MINUTE", 20),
    redisUrl,
    redisTimeout: Env.duration("REDIS_TIMEOUT", "200 millis")
  }),
  webhooks: Config.all({
    payloadVariant: Env.literal<PayloadVariant>("WEBHOOK_PAYLOAD_VARIANT", "records", ["records", "envelopes"]),
    retrySchedule: Env.durationList("WEBHOOK_RETRY_SCHEDULE", "5s,30s,2m,10m,30m,1h,2h,6h,12h,24h"),
    timeout: Env.duration("WEBHOOK_TIMEOUT", "10 seconds"),
    concurrency: Env.integer("WEBHOOK_CONCURRENCY", 16, 1, 1024),
    allowPrivateDestinations: Env.boolean("WEBHOOK_ALLOW_PRIVATE_DESTINATIONS", false)
  }),
  email,
  emailDailyLimit: Env.integer("EMAIL_DAILY_LIMIT", 1000, 0, 10_000_000),
  trustedProxies,
  logLevel,
  // read when the configuration is: a test's server process names itself, not the test runner
  instanceId: Env.optionalString("INSTANCE_ID").pipe(
    Config.map(Option.getOrElse(() => `${hostname()}:${process.pid}`))
  ),
  shutdownGracePeriod: Env.duration("SHUTDOWN_GRACE_PERIOD", "10 seconds"),
  shutdownDrainDelay: Env.durationOrZero("SHUTDOWN_DRAIN_DELAY", "2 seconds"),
  metricsToken: Env.optionalSecret("METRICS_TOKEN"),
  otlpEndpoint,
  changesRetention: Env.duration("CHANGES_RETENTION", "30 days"),
  outboxRetention: Env.duration("OUTBOX_RETENTION", "30 days")
})

/**
 * The database, as the service names it in its messages: the SQLite file, or the PostgreSQL URL
 * without its password.
 */
export const databaseLabel = (config: Pick<AppConfigShape, "databasePath" | "databaseUrl">): string => {
  if (Option.isNone(config.databaseUrl)) return config.databasePath
  try {
    const url = new URL(Redacted.value(config.databaseUrl.value))
    url.password = ""
    url.search = ""
    return url.toString()
  } catch {
    return "PostgreSQL"
  }
}

export class AppConfig extends Context.Tag("Convene/AppConfig")<AppConfig, AppConfigShape>() {
  /** Reads the configuration from the ambient `ConfigProvider` (the environment in production). */
  static readonly layer = Layer.effect(AppConfig, appConfig)
}
