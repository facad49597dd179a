/** `npm start`: the Convene service. Start-up failures end in one line on stderr and exit code 1. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AnnounceLive } from "./Announce.js"
import { AppConfig, appConfig, databaseLabel } from "./Config/AppConfig.js"
import { describeConfigError } from "./Config/Env.js"
import { MainLive } from "./Server.js"

const fail = (line: string) =>
  Effect.zipRight(
    Console.error(`convene: ${line}`),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

const causeOf = (error: { readonly cause?: unknown; readonly message: string }) =>
  error.cause instanceof Error ? error.cause.message.replace(/^.*?(?:: |\w+ )(E[A-Z]+: )/, "$1") : error.message

const program = Effect.gen(function*() {
  const config = yield* appConfig
  return yield* AnnounceLive.pipe(
    Layer.provideMerge(MainLive),
    Layer.provide(Layer.succeed(AppConfig, config)),
    Layer.launch,
    Effect.catchTags({
      SqlError: (error) => fail(`cannot open the database at ${databaseLabel(config)}: ${causeOf(error)}`),
      ServeError: (error) => fail(`cannot listen on ${config.host}:${config.port}: ${causeOf(error)}`)
    })
  )
}).pipe(Effect.catchIf(ConfigError.isConfigError, (error) => fail(`invalid configuration: ${describeConfigError(error)}`)))

NodeRuntime.runMain(program, { disablePrettyLogger: true })
