import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The total of a name search of up to three characters without reading its matches (issues 17
 * and 18). The trigram index (0006) finds a page of matches quickly, but the exact total of a
 * common term (`an`: 18,758 of 100,000 persons) read every match's row, and a term of one or two
 * characters, which holds no trigram, scanned every person.
 *
 * `persons_search_counts` keeps, per organization, archived state (0 or 1) and n-gram of one to
 * three characters, the number of persons whose `name_key` contains it: the total of a search for
 * that term (src/Db/Dialect.ts). Statement triggers keep it, in the statement that writes the
 * persons, so every write path counts in its own transaction; an import adds a whole batch of
 * persons with one upsert of its summed counts (transition tables). An UPDATE counts only the
 * rows whose name, organization or archived state changed. Writes take the one write lock
 * (src/Db/Postgres.ts), so the counting rows are never contended. PostgreSQL only: SQLite counts
 * from its FTS5 tables' vocabularies (migrations/0018), and src/Db/LogicalSchema.ts lists these
 * objects as PostgreSQL's own.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons_search_counts (
    organization_id  bigint NOT NULL,
    archived         integer NOT NULL,
    gram             text COLLATE "C" NOT NULL,
    persons          bigint NOT NULL,
    PRIMARY KEY (organization_id, archived, gram)
  )`
  // the distinct substrings of one to three characters of a name
  yield* sql`CREATE FUNCTION persons_search_grams(name text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT DISTINCT substr(name, i, n) FROM generate_series(1, 3) AS n, generate_series(1, length(name) - n + 1) AS i
    $$`
  // the counts of the n-grams of `changes`' names: (organization_id, archived, name_key, sign) per row written
  const upsert = (changes: string) => `
        INSERT INTO persons_search_counts AS c (organization_id, archived, gram, persons)
        SELECT w.organization_id, w.archived, g.gram, sum(w.sign)
        FROM (${changes}) AS w (organization_id, archived, name_key, sign), persons_search_grams(w.name_key) AS g (gram)
        GROUP BY w.organization_id, w.archived, g.gram
        HAVING sum(w.sign) <> 0
        ON CONFLICT (organization_id, archived, gram) DO UPDATE SET persons = c.persons + excluded.persons`
  const state = (row: string) => `(${row}.archived_at IS NOT NULL)::integer`
  yield* sql.unsafe(`CREATE FUNCTION persons_search_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${upsert(`SELECT n.organization_id, ${state("n")}, n.name_key, 1 FROM new_rows n`)};
      RETURN NULL;
    END $$`)
  yield* sql.unsafe(`CREATE FUNCTION persons_search_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${upsert(`SELECT o.organization_id, ${state("o")}, o.name_key, -1 FROM old_rows o`)};
      RETURN NULL;
    END $$`)
  yield* sql.unsafe(`CREATE FUNCTION persons_search_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${
    upsert(`SELECT x.organization_id, x.archived, x.name_key, x.sign
        FROM old_rows o JOIN new_rows n ON n.id = o.id,
          LATERAL (VALUES (o.organization_id, ${state("o")}, o.name_key, -1), (n.organization_id, ${state("n")}, n.name_key, 1))
            AS x (organization_id, archived, name_key, sign)
        WHERE o.name_key IS DISTINCT FROM n.name_key OR o.organization_id IS DISTINCT FROM n.organization_id
          OR (o.archived_at IS NULL) <> (n.archived_at IS NULL)`)
  };
      RETURN NULL;
    END $$`)
  yield* sql`CREATE TRIGGER persons_search_count_insert AFTER INSERT ON persons
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_insert()`
  yield* sql`CREATE TRIGGER persons_search_count_delete AFTER DELETE ON persons
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_delete()`
  yield* sql`CREATE TRIGGER persons_search_count_update AFTER UPDATE ON persons
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_update()`
  yield* sql.unsafe(upsert(`SELECT p.organization_id, ${state("p")}, p.name_key, 1 FROM persons p`))
})
