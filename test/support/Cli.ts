import { Effect } from "effect"
import { execFile } from "node:child_process"
import { BUILT_CLI, BUILT_SERVICE } from "./Build.js"

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const run = (entry: string, env: Record<string, string>, args: Array<string>) =>
  Effect.async<CliResult>((resume) => {
    execFile(
      process.execPath,
      [entry, ...args],
      { env: { ...process.env, ...env, NO_COLOR: "1" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
  })

/**
 * Runs the admin CLI as an operator would, in its own process: the build of the sources under test
 * (`dist/src/cli.js`, made by the suite's global setup, test/support/engine-setup.ts).
 */
export const cli = (env: Record<string, string>, ...args: Array<string>) => run(BUILT_CLI, env, args)

/** Runs the service (`dist/src/main.js`) to its end: for start-ups that must fail. */
export const service = (env: Record<string, string>) => run(BUILT_SERVICE, env, [])
