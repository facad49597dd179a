/** `npm run cli -- ...` / `convene ...`: the admin CLI. */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { commands } from "./Cli/Commands.js"
import { AppConfig, appConfig } from "./Config/AppConfig.js"
import { describeConfigError } from "./Config/Env.js"
import { ServicesLive } from "./Server.js"
import { SqlLive } from "./Db/Sql.js"

const run = Command.run(commands, { name: "convene", version: "1.0.0" })

const program = Effect.gen(function*() {
  const config = yield* appConfig
  const services = ServicesLive.pipe(
    Layer.provideMerge(SqlLive),
    // commands read the configuration too (the demo prints the server's address)
    Layer.provideMerge(Layer.succeed(AppConfig, config))
  )
  yield* Effect.suspend(() => run(process.argv)).pipe(Effect.provide(services))
}).pipe(
  Effect.catchIf(ConfigError.isConfigError, (error) =>
    Console.error(`convene: invalid configuration: ${describeConfigError(error)}`).pipe(
      Effect.zipRight(Effect.sync(() => (process.exitCode = 1)))
    )),
  Effect.catchAll((error) =>
    Console.error(`convene: ${"message" in error ? error.message : String(error)}`).pipe(
      Effect.zipRight(Effect.sync(() => (process.exitCode = 1)))
    )),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, { disablePrettyLogger: true })
