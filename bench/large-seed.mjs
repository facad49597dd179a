// Seeds a database far larger than seeding through the API allows: the real server migrates the
// file and creates the event, then persons, guests, histories, invites, phones and purchases go in
// directly through better-sqlite3, one transaction per chunk, into the tables the migrations made.
import Database from "better-sqlite3"
import { randomBytes, randomUUID } from "node:crypto"
import { client, startServer } from "./lib.mjs"
import { personFor } from "./seed.mjs"

const CHUNK = 50_000
const AT = "2026-11-01T10:00:00.000Z"
const STATUSES = ["Accepted", "Declined", "Maybe"]

/**
 * Creates the database at `databasePath` with `persons` persons and one event holding the first
 * `guests` of them (ticketed when `ticketed`: every 20th guest has a purchase, every 100th a
 * refund). `server` is the script of a built Convene; `env` its environment (bootstrap token).
 * Returns the event's public id and a person's public id.
 */
export const seedLarge = async ({ server, env, port, databasePath, persons, guests, ticketed, log }) => {
  const convene = await startServer({ script: server, env: { ...env, DATABASE_PATH: databasePath }, port })
  let eventId
  try {
    const api = client(convene.url)
    eventId = (await api("POST", "/event", { name: "Large event", primaryDate: "2031-06-01T18:00:00Z", ticketingEnabled: ticketed })).eventId
  } finally {
    await convene.stop()
  }

  const db = new Database(databasePath)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = OFF")
  db.pragma("foreign_keys = ON")
  const event = db.prepare("SELECT id, organization_id FROM events WHERE public_id = ?").get(eventId)
  const org = event.organization_id
  const insertPerson = db.prepare(`INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key,
      name_key, company, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const insertPhone = db.prepare("INSERT INTO phones (person_id, number, is_preferred, created_at) VALUES (?, ?, 1, ?)")
  const insertConsent = db.prepare(`INSERT INTO sms_consents (organization_id, number, consent, source, updated_at)
      VALUES (?, ?, 'optedIn', 'api', ?)`)
  const insertGuest = db.prepare(`INSERT INTO event_guests (event_id, person_id, rsvp_status, attendance_status,
      created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
  const insertHistory = db.prepare(`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type,
      created_at) VALUES (?, ?, 'apiKey', 'bench', ?, ?)`)
  const insertInvite = db.prepare("INSERT INTO invites (event_guest_id, token, created_at) VALUES (?, ?, ?)")
  const insertPurchase = db.prepare(`INSERT INTO purchases (public_id, event_id, invoice_number, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?)`)
  const insertItem = db.prepare(`INSERT INTO purchase_items (public_id, purchase_id, person_id, type, subtotal, tax,
      service_fee, total, promo_code) VALUES (?, ?, ?, 'TICKET', 10000, 800, 300, 11100, NULL)`)
  const insertRefund = db.prepare(`INSERT INTO refunds (public_id, purchase_id, item_id, amount, created_at)
      VALUES (?, ?, ?, 1000, ?)`)

  const personIds = new Int32Array(persons)
  const chunkOfPersons = db.transaction((start, end) => {
    for (let i = start; i < end; i++) {
      const p = personFor(i)
      const id = Number(insertPerson.run(randomUUID(), org, p.firstName, p.lastName, p.email, p.email.toLowerCase(),
        `${p.firstName} ${p.lastName}`.toLowerCase(), i % 4 === 0 ? "Bench Co" : null, AT, AT).lastInsertRowid)
      personIds[i] = id
      if (i % 3 === 0) {
        const number = `+1555${String(i).padStart(7, "0")}`
        insertPhone.run(id, number, AT)
        if (i % 6 === 0) insertConsent.run(org, number, AT)
      }
    }
  })
  const chunkOfGuests = db.transaction((start, end) => {
    for (let i = start; i < end; i++) {
      const final = i % 2 === 0 ? STATUSES[(i + 1) % 3] : STATUSES[i % 3]
      const gid = Number(insertGuest.run(event.id, personIds[i], final, i % 10 === 0 ? "Attended" : null, AT, AT).lastInsertRowid)
      insertHistory.run(gid, "Invited", "added", AT)
      insertHistory.run(gid, STATUSES[i % 3], "updated", AT)
      if (i % 2 === 0) insertHistory.run(gid, final, "updated", AT)
      insertInvite.run(gid, randomBytes(16).toString("base64url"), AT)
      if (ticketed && i % 20 === 0) {
        const purchase = Number(insertPurchase.run(randomUUID(), event.id, `INV-${i}`, AT, AT).lastInsertRowid)
        const item = Number(insertItem.run(randomUUID(), purchase, personIds[i]).lastInsertRowid)
        if (i % 100 === 0) insertRefund.run(randomUUID(), purchase, item, AT)
      }
    }
  })
  const started = performance.now()
  for (let start = 0; start < persons; start += CHUNK) {
    chunkOfPersons(start, Math.min(persons, start + CHUNK))
    if ((start + CHUNK) % 200_000 === 0) log(`  ${start + CHUNK} persons (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  }
  for (let start = 0; start < guests; start += CHUNK) {
    chunkOfGuests(start, Math.min(guests, start + CHUNK))
    if ((start + CHUNK) % 200_000 === 0) log(`  ${start + CHUNK} guests (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  }
  const personId = db.prepare("SELECT public_id FROM persons WHERE id = ?").get(personIds[Math.floor(persons / 2)]).public_id
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return { eventId, personId }
}
