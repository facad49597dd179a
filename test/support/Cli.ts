import { Effect } from "effect"
import { execFile } from "node:child_process"

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const run = (entry: string, env: Record<string, string>, args: Array<string>) =>
  Effect.async<CliResult>((resume) => {
    execFile(
      process.execPath,
      ["--import", "tsx", entry, ...args],
      { env: { ...process.env, ...env, NO_COLOR: "1" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
  })

/** Runs the admin CLI from source (`src/cli.ts` through tsx) as an operator would, in its own process. */
export const cli = (env: Record<string, string>, ...args: Array<string>) => run("src/cli.ts", env, args)

/** Runs the service (`src/main.ts`) to its end: for start-ups that must fail. */
export const service = (env: Record<string, string>) => run("src/main.ts", env, [])
