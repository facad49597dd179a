// The browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core; no test
// tool downloads a browser. On a machine without it, install the Debian package when we can
// (root with apt-get), else say how.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"

const CHROMIUM = "/usr/bin/chromium"

if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === "function" && process.getuid() === 0
  if (root && existsSync("/usr/bin/apt-get")) {
    console.log("Installing Debian's chromium for the browser tests...")
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env })
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { stdio: "inherit", env })
  } else {
    console.error(`The browser tests need ${CHROMIUM}: install Debian's chromium package (apt-get install chromium).`)
    process.exit(1)
  }
}
