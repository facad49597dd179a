// Webhook delivery: the delay from a committed change to its arrival at a local receiver (p50, p99),
// and deliveries per second when many are due at once. Convene only: the floor has no webhooks.
import { client, percentile, sleep, startReceiver } from "./lib.mjs"

export const measureWebhooks = async (server, { changes = 200, registrations = 20, writes = 100 } = {}) => {
  const api = client(server.url)
  const receiver = await startReceiver()
  try {
    // latency: one registration, sequential changes; the clock starts when the API has answered
    // (the change committed before the answer) and stops when the receiver has the notification
    await api("POST", "/webhook", { webhook: receiver.url("/latency"), type: "Event" })
    const event = await api("POST", "/event", { name: "Webhook latency", primaryDate: "2031-01-01T10:00:00Z" })
    const delays = []
    for (let i = 0; i < changes; i++) {
      const before = receiver.arrivals.length
      await api("PATCH", `/event/${event.eventId}`, { name: `Latency ${i}` })
      const committed = performance.now()
      while (receiver.arrivals.length === before) await sleep(0)
      delays.push(receiver.arrivals[before].at - committed)
    }
    await api("DELETE", "/webhook", { webhook: receiver.url("/latency"), type: "Event" })

    // throughput: many registrations, a burst of changes, time until the last delivery lands
    for (let r = 0; r < registrations; r++) {
      await api("POST", "/webhook", { webhook: receiver.url(`/burst/${r}`), type: "Event" })
    }
    const start = receiver.arrivals.length
    const expected = registrations * writes
    const t0 = performance.now()
    for (let i = 0; i < writes; i++) await api("PATCH", `/event/${event.eventId}`, { name: `Burst ${i}` })
    while (receiver.arrivals.length - start < expected) {
      if (performance.now() - t0 > 120_000) throw new Error(`only ${receiver.arrivals.length - start} of ${expected} deliveries arrived`)
      await sleep(5)
    }
    const seconds = (performance.now() - t0) / 1000
    return {
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
      deliveriesPerSecond: expected / seconds,
      deliveries: expected
    }
  } finally {
    await receiver.close()
  }
}
