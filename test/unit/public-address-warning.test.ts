/**
 * The public address's warning (CONTRACT §16, Runtime/PublicAddressWarning.ts): start-up names the
 * address links point at and how to set PUBLIC_BASE_URL; the dashboard's warning is for requests
 * under another host name than this computer's, and never once PUBLIC_BASE_URL is set.
 */
import { describe, expect, it } from "@effect/vitest"
import { dashboardAddressWarning, hostNameOf, isLoopbackHost, unsetAddressWarning } from "../../src/Runtime/PublicAddressWarning.js"

describe("the public address's warning", () => {
  it("at start-up: where links point and how to set it", () => {
    const text = unsetAddressWarning("http://localhost:3000")
    expect(text).toContain("PUBLIC_BASE_URL is not set")
    expect(text).toContain("will point at http://localhost:3000")
    expect(text).toContain("PUBLIC_BASE_URL=https://")
  })

  it("reads the host name of a Host header", () => {
    expect(hostNameOf("Example.org:8080")).toBe("example.org")
    expect(hostNameOf("[::1]:3000")).toBe("::1")
    expect(hostNameOf("events.example.org")).toBe("events.example.org")
  })

  it("knows this computer's names", () => {
    for (const host of ["localhost", "app.localhost", "127.0.0.1", "127.1.2.3", "::1"]) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ["example.org", "192.168.1.20", "10.0.0.5", "localhost.example.org"]) expect(isLoopbackHost(host), host).toBe(false)
  })

  it("in the dashboard: only under another host name, and only while the address is a guess", () => {
    const guessed = { configured: false, baseUrl: "http://localhost:3000" }
    expect(dashboardAddressWarning(guessed, "localhost:3000")).toBeUndefined()
    expect(dashboardAddressWarning(guessed, "127.0.0.1:3000")).toBeUndefined()
    expect(dashboardAddressWarning(guessed, undefined)).toBeUndefined()
    expect(dashboardAddressWarning(guessed, "192.168.1.20:3000")).toContain("you reached this dashboard at 192.168.1.20")
    expect(dashboardAddressWarning({ configured: true, baseUrl: "https://events.example.org" }, "192.168.1.20:3000")).toBeUndefined()
  })
})
