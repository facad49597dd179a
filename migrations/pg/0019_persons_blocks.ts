import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A deep page of the directory without walking everything before it (issue 18): the same
 * `persons_blocks` as SQLite's (migrations/0019, which says how a page uses it), kept by statement
 * triggers with transition tables, one upsert of the statement's summed counts, as
 * `persons_search_counts` is (migrations/pg/0018). An UPDATE counts only the rows whose
 * organization or archived state changed. The trigger functions run without JIT (see 0018).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons_blocks (
    organization_id  bigint NOT NULL,
    archived         integer NOT NULL,
    block            bigint NOT NULL,
    persons          bigint NOT NULL,
    PRIMARY KEY (organization_id, archived, block)
  ) WITH (fillfactor = 50)`
  // the counts of `changes`: (organization_id, archived, block, sign) per row written
  const upsert = (changes: string) => `
        INSERT INTO persons_blocks AS b (organization_id, archived, block, persons)
        SELECT w.organization_id, w.archived, w.block, sum(w.sign)
        FROM (${changes}) AS w (organization_id, archived, block, sign)
        GROUP BY w.organization_id, w.archived, w.block
        HAVING sum(w.sign) <> 0
        ON CONFLICT (organization_id, archived, block) DO UPDATE SET persons = b.persons + excluded.persons`
  const row = (r: string, sign: 1 | -1) => `${r}.organization_id, (${r}.archived_at IS NOT NULL)::integer, ${r}.id / 1024, ${sign}`
  const counting = (name: string, changes: string) =>
    sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
    BEGIN${upsert(changes)};
      RETURN NULL;
    END $$`)
  yield* counting("persons_blocks_insert", `SELECT ${row("n", 1)} FROM new_rows n`)
  yield* counting("persons_blocks_delete", `SELECT ${row("o", -1)} FROM old_rows o`)
  // an id never changes here (GENERATED ALWAYS), so the rows of an UPDATE pair by it
  yield* counting(
    "persons_blocks_update",
    `SELECT x.organization_id, x.archived, x.block, x.sign
        FROM old_rows o JOIN new_rows n ON n.id = o.id,
          LATERAL (VALUES (${row("o", -1)}), (${row("n", 1)})) AS x (organization_id, archived, block, sign)
        WHERE o.organization_id <> n.organization_id OR (o.archived_at IS NULL) <> (n.archived_at IS NULL)`
  )
  yield* sql`CREATE TRIGGER persons_blocks_insert AFTER INSERT ON persons
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_blocks_insert()`
  yield* sql`CREATE TRIGGER persons_blocks_delete AFTER DELETE ON persons
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_blocks_delete()`
  yield* sql`CREATE TRIGGER persons_blocks_update AFTER UPDATE ON persons
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_blocks_update()`
  yield* sql.unsafe(upsert(`SELECT ${row("p", 1)} FROM persons p`))
})
