/** The database, byte for byte: a digest to show a request changed nothing. */
import type Database from "better-sqlite3"
import { createHash } from "node:crypto"
import { type DatabaseEnv, type Query, withDatabase } from "./Engine.js"

/**
 * Tables no request writes: `outbox_instances`, each running instance's heartbeat, written every few
 * seconds on PostgreSQL whatever the requests do (migration 0020).
 */
const LIVENESS_TABLES = new Set(["outbox_instances"])

/** One table's part of a digest: its rows in a stable order, without `api_tokens.last_used_at`. */
const tableText = (name: string, rows: ReadonlyArray<Record<string, unknown>>) => {
  const lines = rows.map((row) => {
    const copy = { ...row }
    if (name === "api_tokens") delete copy["last_used_at"]
    return JSON.stringify(copy, (_, v) => (Buffer.isBuffer(v) ? v.toString("hex") : typeof v === "bigint" ? `${v}n` : v))
  }).sort()
  return `${name}\n${lines.join("\n")}\n`
}

/**
 * A digest of every row of every table (FTS shadow tables included), in a stable order. One column is
 * left out: an API token's `last_used_at`, which any authenticated request may touch (once a minute);
 * and the instances' heartbeats (`LIVENESS_TABLES`).
 */
export const digestOf = (db: Database.Database) => {
  const hash = createHash("sha256")
  const tables = db.prepare<[], { name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"
  ).all()
  for (const { name } of tables) {
    if (LIVENESS_TABLES.has(name)) continue
    hash.update(tableText(name, db.prepare(`SELECT * FROM "${name}"`).raw(false).all() as Array<Record<string, unknown>>))
  }
  return hash.digest("hex")
}

/**
 * `digestOf` on either engine, from the variables naming a test server's database
 * (`server.databaseEnv`): on PostgreSQL, every row of every table of the schema, in the same form.
 */
export const databaseDigest = (env: DatabaseEnv): Promise<string> => withDatabase(env, digestWith)

/** `databaseDigest` over an open connection (`openDatabase`), for tests that take many digests. */
export const digestWith = async (query: Query): Promise<string> => {
  const hash = createHash("sha256")
  const tables = await query<{ name: string; engine: string }>(
    "SELECT name, 'sqlite' AS engine FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
    [],
    "SELECT table_name AS name, 'postgres' AS engine FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
  ).then((found) => found.filter(({ name }) => !LIVENESS_TABLES.has(name)))
  if (tables[0]?.engine === "postgres") {
    // one statement (one snapshot, one round trip; a table at a time made 35): each table's rows as
    // JSON, in a stable order, digested by PostgreSQL
    const parts = tables.map(({ name }, i) => {
      const row = name === "api_tokens" ? `(to_jsonb(t) - 'last_used_at')::text` : "to_jsonb(t)::text"
      return `SELECT ${i} AS i, md5(coalesce(string_agg(${row}, E'\\n' ORDER BY ${row}), '')) AS part FROM "${name}" t`
    })
    const rows = await query<{ part: string }>("SELECT 1", [], `${parts.join(" UNION ALL ")} ORDER BY i`)
    for (const [i, { name }] of tables.entries()) hash.update(`${name}\n${rows[i]!.part}\n`)
    return hash.digest("hex")
  }
  for (const { name } of tables) {
    hash.update(tableText(name, await query<Record<string, unknown>>(`SELECT * FROM "${name}"`)))
  }
  return hash.digest("hex")
}
