// `node bench/profile-statements.mjs <database>`: the statements of the two hot paths
// (GET /person/:id, PUT /event/:id/guestlist with one guest's status) run alone on a copy of a
// seeded database, with Convene's connection settings: CPU and wall time of each, and its query
// plan. Also the guest lookup of the PUT (GuestsRepo.activeLinks) as it is and driven from the
// person instead, on every event of the database, to show what grows with the list. The
// statements' text is the one bench/profile-sql.mjs traced from the running server (commit 0dd5fd3).
//
// Works on a database from bench/profile.mjs (bench/profiles/seeded.db) or bench/large-seed.mjs.
import Database from "better-sqlite3"
import { copyFileSync, rmSync } from "node:fs"
import { createHash } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TOKEN } from "./lib.mjs"

const source = process.argv[2]
if (source === undefined) throw new Error("usage: node bench/profile-statements.mjs <database>")
const file = join(tmpdir(), `convene-statements-${process.pid}.db`)
copyFileSync(source, file)
const db = new Database(file)
// as src/Db/Sqlite.ts opens it
db.pragma("journal_mode = WAL")
db.pragma("synchronous = FULL")
db.pragma("foreign_keys = ON")
db.pragma("busy_timeout = 5000")
db.pragma("cache_size = -16384")
db.pragma("temp_store = MEMORY")

const count = (table) => db.prepare(`SELECT count(*) AS n FROM ${table}`).get().n
console.log(`${source}: ${count("persons")} persons, ${count("event_guests")} guest links, ${count("rsvp_history")} history entries, ${count("changes")} changes`)

const organization = db.prepare("SELECT organization_id AS id FROM api_tokens LIMIT 1").get().id
const personIds = db.prepare("SELECT public_id FROM persons WHERE organization_id = ? ORDER BY random() LIMIT 2000").all(organization).map((r) => r.public_id)
const internalId = db.prepare("SELECT id FROM persons WHERE public_id = ?").pluck()
const events = db.prepare(`SELECT e.id, e.public_id, e.name, (SELECT count(*) FROM event_guests g WHERE g.event_id = e.id) AS guests
  FROM events e WHERE e.organization_id = ? ORDER BY guests DESC`).all(organization).filter((e) => e.guests > 0)
const guestsOf = (event) =>
  db.prepare(`SELECT g.id, p.public_id FROM event_guests g JOIN persons p ON p.id = g.person_id
    WHERE g.event_id = ? AND g.removed_at IS NULL ORDER BY random() LIMIT 1000`).all(event.id)

const rows = []
const time = (name, n, f, plan) => {
  for (let i = 0; i < Math.min(200, n); i++) f(i)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < n; i++) f(i)
  const wall = Number(process.hrtime.bigint() - t0) / 1e3 / n
  const cpu = process.cpuUsage(cpu0)
  rows.push({ statement: name, "CPU µs": ((cpu.user + cpu.system) / n).toFixed(1), "wall µs": wall.toFixed(1), plan: plan ?? "" })
}
const planOf = (sql, ...params) => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((r) => r.detail).join("; ")

const SQL = {
  apiToken: `SELECT t.id, t.public_id, t.organization_id, o.slug, t.last_used_at FROM api_tokens t JOIN organizations o ON o.id = t.organization_id WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
  person: `SELECT p.id, p.public_id, p.first_name, p.last_name, p.email, p.profile_picture, p.company, p.position, p.birthday, p.address, p.apartment, p.city, p.state, p.country, p.postal_code, p.context_note, p.archived_at, (SELECT number FROM phones f WHERE f.person_id = p.id ORDER BY f.is_preferred DESC, f.id LIMIT 1) AS phone FROM persons p WHERE p.public_id = ? AND p.organization_id = ?`,
  fieldValues: `SELECT v.person_id, v.field_id, v.public_id, v.value, f.public_id AS field_public_id, f.name, f.type, CASE WHEN f.type = 'multiselect' THEN (SELECT json_group_array(json_object('id', o.public_id, 'value', o.value, 'color', o.color) ORDER BY o.id) FROM custom_field_options o WHERE o.field_id = f.id) END AS options FROM person_field_values v JOIN custom_fields f ON f.id = v.field_id WHERE v.person_id IN (SELECT value FROM json_each(?)) ORDER BY v.person_id, v.field_id`,
  eventsOfPerson: `SELECT g.id AS gid, e.public_id, e.name, e.slug, e.primary_date, g.rsvp_status, g.attendance_status, (SELECT json_group_array(json_object('status', h.status, 'actorId', h.actor_id, 'actorType', h.actor_type, 'createdAt', h.created_at) ORDER BY h.id) FROM rsvp_history h WHERE h.event_guest_id = g.id) AS history FROM event_guests g JOIN events e ON e.id = g.event_id WHERE g.person_id = ? AND g.removed_at IS NULL AND e.organization_id = ? ORDER BY e.primary_date_utc, g.id`,
  event: `SELECT * FROM events WHERE public_id = ? AND organization_id = ?`,
  activeLinks: `SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note, g.custom_columns, g.removed_at, p.public_id FROM persons p JOIN event_guests g ON g.person_id = p.id AND g.event_id = ? AND g.removed_at IS NULL WHERE p.organization_id = ? AND p.public_id IN (SELECT value FROM json_each(?))`,
  // the same answer, driven from the named persons: one index probe per person instead of a walk of the list
  activeLinksByPerson: `SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note, g.custom_columns, g.removed_at, p.public_id FROM json_each(?) j CROSS JOIN persons p ON p.public_id = j.value CROSS JOIN event_guests g ON g.event_id = ? AND g.person_id = p.id WHERE p.organization_id = ? AND g.removed_at IS NULL`,
  guestsByIds: `SELECT g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email, p.company, p.position, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note, g.custom_columns, g.rsvp_question_responses, ph.number AS phone, c.consent, c.source AS consent_source, i.token, g.removed_at, (SELECT json_group_array(json_object('status', h.status, 'actorId', h.actor_id, 'actorType', h.actor_type, 'actionType', h.action_type, 'createdAt', h.created_at) ORDER BY h.id) FROM rsvp_history h WHERE h.event_guest_id = g.id) AS history FROM event_guests g JOIN persons p ON p.id = g.person_id LEFT JOIN phones ph ON ph.id = (SELECT x.id FROM phones x WHERE x.person_id = g.person_id ORDER BY x.is_preferred DESC, x.id LIMIT 1) LEFT JOIN sms_consents c ON c.organization_id = p.organization_id AND c.number = ph.number LEFT JOIN invites i ON i.event_guest_id = g.id WHERE g.id IN (SELECT value FROM json_each(?)) ORDER BY g.id`,
  webhooksOfType: `SELECT id FROM webhooks WHERE organization_id = ? AND type = ? AND deleted_at IS NULL AND disabled_at IS NULL`,
  history: `INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  updateGuest: `UPDATE event_guests SET "rsvp_status" = ?, "updated_at" = ? WHERE id = ?`,
  changes: `INSERT INTO changes (organization_id, type, action, entity_id, event_id, occurred_at) SELECT ?, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, ? FROM json_each(?) j ORDER BY j.key`
}
const q = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)]))
const hash = createHash("sha256").update(TOKEN).digest()
const pick = (list, i) => list[(i * 7919) % list.length]

// GET /person/:id
time("GET: api token by hash", 5000, () => q.apiToken.get(hash), planOf(SQL.apiToken, hash))
time("GET: person by public id", 5000, (i) => q.person.all(pick(personIds, i), organization), planOf(SQL.person, "x", 1))
time("GET: custom field values of the person", 5000, (i) => q.fieldValues.all(JSON.stringify([internalId.get(pick(personIds, i))])), planOf(SQL.fieldValues, "[]"))
time("GET: events of the person, with histories", 5000, (i) => q.eventsOfPerson.all(internalId.get(pick(personIds, i)), organization), planOf(SQL.eventsOfPerson, 1, 1))

// PUT /event/:id/guestlist, on each event
const at = new Date().toISOString()
const begin = db.prepare("BEGIN IMMEDIATE")
const commit = db.prepare("COMMIT")
for (const event of events.slice(0, 3)) {
  const guests = guestsOf(event)
  const tag = `PUT (${event.guests.toLocaleString("en")}-guest list)`
  const n = Math.max(20, Math.min(5000, Math.floor(5_000_000 / event.guests)))
  time(`${tag}: SELECT * FROM events by public id`, 5000, () => q.event.all(event.public_id, organization), planOf(SQL.event, "x", 1))
  time(`${tag}: activeLinks as it is`, n, (i) => q.activeLinks.all(event.id, organization, JSON.stringify([pick(guests, i).public_id])), planOf(SQL.activeLinks, 1, 1, "[]"))
  time(`${tag}: activeLinks driven from the person`, 5000, (i) => q.activeLinksByPerson.all(JSON.stringify([pick(guests, i).public_id]), event.id, organization), planOf(SQL.activeLinksByPerson, "[]", 1, 1))
  time(`${tag}: the guest with its history (render)`, 5000, (i) => q.guestsByIds.all(JSON.stringify([pick(guests, i).id])), planOf(SQL.guestsByIds, "[]"))
  time(`${tag}: webhooks of a type (x2 per request)`, 5000, () => q.webhooksOfType.all(organization, "GuestList"), planOf(SQL.webhooksOfType, 1, "x"))
  const write = (i) => {
    const guest = pick(guests, i)
    begin.run()
    q.history.run(guest.id, "Accepted", "apiKey", "bench", "updated", at)
    q.updateGuest.run("Accepted", at, guest.id)
    q.changes.run(organization, at, JSON.stringify([["guest", "updated", guest.public_id, event.public_id]]))
    commit.run()
  }
  // the same three writes, many to a transaction: what the commit adds is the difference
  begin.run()
  time(`${tag}: its history, update and change writes alone (inside one long transaction)`, 1000, (i) => {
    const guest = pick(guests, i)
    q.history.run(guest.id, "Accepted", "apiKey", "bench", "updated", at)
    q.updateGuest.run("Accepted", at, guest.id)
    q.changes.run(organization, at, JSON.stringify([["guest", "updated", guest.public_id, event.public_id]]))
  })
  commit.run()
  for (const synchronous of ["FULL", "NORMAL"]) {
    db.pragma(`synchronous = ${synchronous}`)
    time(`${tag}: write transaction (BEGIN IMMEDIATE, history, update, change, COMMIT), synchronous=${synchronous}`, 1000, write)
  }
  db.pragma("synchronous = FULL")
}
time("prepare('COMMIT'): what executeUnprepared pays per BEGIN and COMMIT", 5000, () => db.prepare("COMMIT"))
db.close()
rmSync(file, { force: true })
rmSync(`${file}-wal`, { force: true })
rmSync(`${file}-shm`, { force: true })

console.log("\n| statement | CPU µs | wall µs | plan |\n|---|---|---|---|")
for (const r of rows) console.log(`| ${r.statement} | ${r["CPU µs"]} | ${r["wall µs"]} | ${r.plan} |`)
