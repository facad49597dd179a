/** `npm start`: the Convene service. */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AnnounceLive } from "./Announce.js"
import { AppConfig, appConfig } from "./Config/AppConfig.js"
import { describeConfigError } from "./Config/Env.js"
import { MainLive } from "./Server.js"

const program = Effect.gen(function*() {
  const config = yield* appConfig
  return yield* AnnounceLive.pipe(
    Layer.provideMerge(MainLive),
    Layer.provide(Layer.succeed(AppConfig, config)),
    Layer.launch
  )
}).pipe(
  Effect.catchIf(ConfigError.isConfigError, (error) =>
    Effect.zipRight(
      Console.error(`convene: invalid configuration: ${describeConfigError(error)}`),
      Effect.sync(() => {
        process.exitCode = 1
      })
    ))
)

NodeRuntime.runMain(program, { disablePrettyLogger: true })
