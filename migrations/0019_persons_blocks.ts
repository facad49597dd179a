import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A deep page of the directory without walking everything before it (issue 18). `GET
 * /person?skip=900000` walked 900,000 entries of the `(organization_id, archived_at, id)` index to
 * find where its page starts: 25 ms against 2 ms for the first page.
 *
 * `persons_blocks` counts, per organization and archived state (0 or 1), the persons whose id is
 * in each block of 1,024 consecutive ids (`id / 1024`). Summing the blocks in order finds the block
 * that holds the page's first person and how many come before it; the page is then read from that
 * block's first id, skipping fewer than 1,024 index entries (src/Persons/PersonsRepo.ts
 * `pageIds`): a thousand small rows summed instead of 900,000 entries walked. Ids only grow, so a
 * new person lands in the last block and the others keep their counts.
 *
 * The triggers keep it in the statement that writes the persons, so every write path (creates,
 * imports, guest lists, archives, SQL typed by hand) counts in its own transaction. A block
 * emptied by deletions keeps its row at 0. PostgreSQL keeps the same table by statement triggers
 * (migrations/pg/0019); `convene migrate-to-postgres` does not copy it, PostgreSQL's triggers count
 * the persons it copies.
 */
const state = (row: string) => `(${row}.archived_at IS NOT NULL)`
const add = (row: string) => `
  INSERT INTO persons_blocks (organization_id, archived, block, persons)
  VALUES (${row}.organization_id, ${state(row)}, ${row}.id / 1024, 1)
  ON CONFLICT DO UPDATE SET persons = persons + 1;`
const remove = (row: string) => `
  UPDATE persons_blocks SET persons = persons - 1
  WHERE organization_id = ${row}.organization_id AND archived = ${state(row)} AND block = ${row}.id / 1024;`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons_blocks (
    organization_id  INTEGER NOT NULL,
    archived         INTEGER NOT NULL,
    block            INTEGER NOT NULL,
    persons          INTEGER NOT NULL,
    PRIMARY KEY (organization_id, archived, block)
  ) STRICT, WITHOUT ROWID`
  yield* sql`INSERT INTO persons_blocks (organization_id, archived, block, persons)
    SELECT organization_id, archived_at IS NOT NULL, id / 1024, count(*) FROM persons GROUP BY 1, 2, 3`
  yield* sql.unsafe(`CREATE TRIGGER persons_blocks_insert AFTER INSERT ON persons BEGIN ${add("new")}
  END`)
  yield* sql.unsafe(`CREATE TRIGGER persons_blocks_delete AFTER DELETE ON persons BEGIN ${remove("old")}
  END`)
  yield* sql.unsafe(`CREATE TRIGGER persons_blocks_update AFTER UPDATE OF id, organization_id, archived_at ON persons
    WHEN old.id IS NOT new.id OR old.organization_id IS NOT new.organization_id
      OR (old.archived_at IS NULL) <> (new.archived_at IS NULL)
  BEGIN ${remove("old")} ${add("new")}
  END`)
})
