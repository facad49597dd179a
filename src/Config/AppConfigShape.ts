/**
 * What the configuration holds once read (src/Config/AppConfig.ts reads it from the environment;
 * README.md lists the variables under "Configuration").
 */
import type * as Duration from "effect/Duration"
import type * as LogLevel from "effect/LogLevel"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { EmailSettings } from "./EmailSettings.js"
import type { TrustedProxies } from "./TrustedProxies.js"

export type PayloadVariant = "records" | "envelopes"

export interface Bootstrap {
  readonly orgSlug: string
  readonly orgName: string
  readonly admin: Option.Option<{ readonly email: string; readonly password: Redacted.Redacted }>
  readonly apiToken: Option.Option<Redacted.Redacted>
}

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly databasePath: string
  /** `DATABASE_URL`: PostgreSQL instead of the SQLite file at `databasePath` (CONTRACT §15). */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /**
   * PostgreSQL only: this instance's pool of connections (`DATABASE_POOL_SIZE`), and how long a
   * statement waits for one of them before the request answers 503 (`DATABASE_ACQUIRE_TIMEOUT`).
   */
  readonly databasePool: {
    readonly size: number
    readonly acquireTimeout: Duration.Duration
    /**
     * `DATABASE_POOL_MODE`: `transaction` behind a pooler in transaction mode (PgBouncer): no named
     * prepared statements, nothing kept in a session between transactions (Db/Postgres.ts).
     */
    readonly mode: "session" | "transaction"
  }
  readonly publicBaseUrl: Option.Option<string>
  readonly bootstrap: Option.Option<Bootstrap>
  readonly accessTokenTtl: Duration.Duration
  /** A dashboard session ends after this long without a request (`SESSION_IDLE_TIMEOUT`). */
  readonly sessionIdleTimeout: Duration.Duration
  readonly rateLimit: {
    readonly burst: number
    readonly perSecond: number
    readonly bulkBurst: number
    readonly bulkPerMinute: number
    /**
     * `REDIS_URL` (`redis://` or `rediss://`): buckets shared by every instance through Redis
     * (RateLimit/RedisBuckets.ts); none keeps them in this process.
     */
    readonly redisUrl: Option.Option<Redacted.Redacted>
    /**
     * `REDIS_TIMEOUT`: how long a request waits for Redis before it counts in this process, and
     * Redis is left alone for a while (RateLimit/RedisBreaker.ts).
     */
    readonly redisTimeout: Duration.Duration
  }
  readonly webhooks: {
    readonly payloadVariant: PayloadVariant
    readonly retrySchedule: ReadonlyArray<Duration.Duration>
    readonly timeout: Duration.Duration
    readonly concurrency: number
    readonly allowPrivateDestinations: boolean
  }
  /** Email (`SMTP_URL` and `MAIL_FROM`, docs/integrators.md#email-invitations); none when both are unset. */
  readonly email: Option.Option<EmailSettings>
  /** The most emails one organization sends in any 24 hours (`EMAIL_DAILY_LIMIT`, Email/EmailQuota.ts). */
  readonly emailDailyLimit: number
  /** Reverse proxies whose forwarding headers are believed (`TRUSTED_PROXIES`). */
  readonly trustedProxies: TrustedProxies
  readonly logLevel: LogLevel.LogLevel
  /** The name every log line gives this instance (`INSTANCE_ID`; host name and process id by default). */
  readonly instanceId: string
  readonly shutdownGracePeriod: Duration.Duration
  /**
   * `SHUTDOWN_DRAIN_DELAY`: on a stop, how long the instance keeps serving with `/readyz` at 503
   * before it stops listening, so that a balancer routes around it first (src/Shutdown.ts).
   */
  readonly shutdownDrainDelay: Duration.Duration
  /** `METRICS_TOKEN`: `GET /metrics` answers to `Authorization: Bearer <it>`; none: 404 (Ops/Metrics.ts). */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: traces exported over OTLP/HTTP there (Telemetry/Tracing.ts); none: no tracing. */
  readonly otlpEndpoint: Option.Option<string>
  /** How long the change feed keeps changes (`CHANGES_RETENTION`, docs/integrators.md#syncing-with-the-change-feed). */
  readonly changesRetention: Duration.Duration
  /** How long delivered, failed and cancelled outbox deliveries are kept (`OUTBOX_RETENTION`, docs/integrators.md#the-delivery-log). */
  readonly outboxRetention: Duration.Duration
}
