/**
 * Readers for environment variables with the service's rules: an unset or empty variable takes
 * its default; a bad value fails with a ConfigError whose message names the variable and says
 * what it must be, so start-up can stop with one clear line.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
const raw = (name: string): Config.Config<Option.Option<string>> =>
  Config.string(name).pipe(
    Config.option,
    Config.map(Option.filter((value) => value.trim() !== ""))
  )

const parsed = <A>(
  name: string,
  fallback: A,
  parse: (value: string) => Option.Option<A>,
  expected: string
): Config.Config<A> =>
  raw(name).pipe(Config.mapOrFail(Option.match({
    onNone: () => Either.right(fallback),
    onSome: (value) =>
      Option.match(parse(value.trim()), {
        onNone: () => Either.left(ConfigError.InvalidData([name], `${name} must be ${expected} (got ${JSON.stringify(value)})`)),
        onSome: Either.right
      })
  })))

export const string = (name: string, fallback: string): Config.Config<string> =>
  parsed(name, fallback, Option.some, "a string")

export const optionalString = (name: string): Config.Config<Option.Option<string>> =>
  raw(name).pipe(Config.map(Option.map((value) => value.trim())))

export const optionalSecret = (name: string): Config.Config<Option.Option<Redacted.Redacted>> =>
  raw(name).pipe(Config.map(Option.map(Redacted.make)))

export const integer = (name: string, fallback: number, min: number, max: number): Config.Config<number> =>
  parsed(
    name,
    fallback,
    (value) => {
      const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
      return Number.isSafeInteger(n) && n >= min && n <= max ? Option.some(n) : Option.none()
    },
    `an integer from ${min} to ${max}`
  )

export const positiveNumber = (name: string, fallback: number): Config.Config<number> =>
  parsed(
    name,
    fallback,
    (value) => {
      const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
      return Number.isFinite(n) && n > 0 ? Option.some(n) : Option.none()
    },
    "a number greater than 0"
  )

export const boolean = (name: string, fallback: boolean): Config.Config<boolean> =>
  parsed(
    name,
    fallback,
    (value) => {
      const v = value.toLowerCase()
      return v === "true" || v === "1" ? Option.some(true) : v === "false" || v === "0" ? Option.some(false) : Option.none()
    },
    "true, false, 1 or 0"
  )

export const literal = <const L extends string>(name: string, fallback: L, values: ReadonlyArray<L>): Config.Config<L> =>
  parsed(
    name,
    fallback,
    (value) => Option.fromNullable(values.find((v) => v.toLowerCase() === value.toLowerCase())),
    `one of ${values.join(", ")}`
  )

const units: Record<string, number> = {
  ms: 1, milli: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1_000, sec: 1_000, secs: 1_000, second: 1_000, seconds: 1_000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000
}

/** `10 seconds`, `10s`, `1.5 h`, `250ms`: a positive number and a unit. */
export const parseDuration = (value: string): Option.Option<Duration.Duration> => {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(value.trim())
  const unit = match ? units[match[2]!.toLowerCase()] : undefined
  if (match === null || unit === undefined) return Option.none()
  const millis = Number(match[1]) * unit
  return millis > 0 ? Option.some(Duration.millis(millis)) : Option.none()
}

export const duration = (name: string, fallback: string): Config.Config<Duration.Duration> =>
  parsed(name, Option.getOrThrow(parseDuration(fallback)), parseDuration, "a duration such as \"10 seconds\" or \"5s\"")

/** A duration as `duration` reads it, or none at all: `0` (with a unit or without). */
export const durationOrZero = (name: string, fallback: string): Config.Config<Duration.Duration> =>
  parsed(
    name,
    Option.getOrThrow(parseDuration(fallback)),
    (value) => (/^0+(\.0+)?\s*[a-z]*$/i.test(value) ? Option.some(Duration.zero) : parseDuration(value)),
    "a duration such as \"2 seconds\", or 0"
  )

export const durationList = (name: string, fallback: string): Config.Config<ReadonlyArray<Duration.Duration>> => {
  const parse = (value: string) => Option.all(value.split(",").map(parseDuration))
  return parsed(name, Option.getOrThrow(parse(fallback)), parse, "a comma-separated list of durations such as \"5s,30s,2m\"")
}

/** The first problem in a ConfigError, as one line. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return describeConfigError(error.left)
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported":
      return error.message.includes(error.path.join(".")) || error.path.length === 0
        ? error.message
        : `${error.path.join(".")}: ${error.message}`
  }
}
