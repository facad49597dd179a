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
 * that term (src/Db/Dialect.ts). Statement triggers keep it in the statement that writes the
 * persons (transition tables: one upsert of the statement's summed counts), so every write path
 * counts in its own transaction, SQL typed by hand included; an UPDATE counts only the rows whose
 * name, organization or archived state changed. Counting in SQL costs some 100 µs of PostgreSQL
 * time per person, which doubled a 50,000-row import: an import's INSERT sets the transaction's
 * `convene.search_counts` to `caller` around itself, and adds the batch's counts, made in
 * JavaScript, in one upsert (PersonsRepo.insertMany).
 *
 * Writes take the one write lock (src/Db/Postgres.ts), so the counting rows are never contended;
 * half-empty pages keep their updates on the page (HOT). The trigger functions run without JIT:
 * the planner's estimate for a name's n-grams made it compile every statement, 10 ms for a
 * one-person INSERT. PostgreSQL only: SQLite counts single characters in a table of its own and
 * longer n-grams from its FTS5 tables (migrations/0018); test/support/LogicalSchema/ lists these
 * objects as each engine's own.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons_search_counts (
    organization_id  bigint NOT NULL,
    archived         integer NOT NULL,
    gram             text COLLATE "C" NOT NULL,
    persons          bigint NOT NULL,
    PRIMARY KEY (organization_id, archived, gram)
  ) WITH (fillfactor = 50)`
  // the distinct substrings of one to three characters of a name (src/Persons/Keys.ts `nameGrams`),
  // each where it first occurs (DISTINCT's hashing of each name's few substrings cost more)
  yield* sql`CREATE FUNCTION persons_search_grams(name text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 40 AS $$
      SELECT substr(name, i, n) FROM generate_series(1, 3) AS n, generate_series(1, length(name) - n + 1) AS i
      WHERE strpos(name, substr(name, i, n)) = i
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
  /** A trigger function that counts `changes`, unless the statement's transaction counts for itself. */
  const counting = (name: string, changes: string) =>
    sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
    BEGIN
      IF current_setting('convene.search_counts', true) = 'caller' THEN
        RETURN NULL;
      END IF;${upsert(changes)};
      RETURN NULL;
    END $$`)
  yield* counting("persons_search_count_insert", `SELECT n.organization_id, ${state("n")}, n.name_key, 1 FROM new_rows n`)
  yield* counting("persons_search_count_delete", `SELECT o.organization_id, ${state("o")}, o.name_key, -1 FROM old_rows o`)
  yield* counting(
    "persons_search_count_update",
    `SELECT x.organization_id, x.archived, x.name_key, x.sign
        FROM old_rows o JOIN new_rows n ON n.id = o.id,
          LATERAL (VALUES (o.organization_id, ${state("o")}, o.name_key, -1), (n.organization_id, ${state("n")}, n.name_key, 1))
            AS x (organization_id, archived, name_key, sign)
        WHERE o.name_key IS DISTINCT FROM n.name_key OR o.organization_id IS DISTINCT FROM n.organization_id
          OR (o.archived_at IS NULL) <> (n.archived_at IS NULL)`
  )
  yield* sql`CREATE TRIGGER persons_search_count_insert AFTER INSERT ON persons
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_insert()`
  yield* sql`CREATE TRIGGER persons_search_count_delete AFTER DELETE ON persons
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_delete()`
  yield* sql`CREATE TRIGGER persons_search_count_update AFTER UPDATE ON persons
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION persons_search_count_update()`
  yield* sql.unsafe(upsert(`SELECT p.organization_id, ${state("p")}, p.name_key, 1 FROM persons p`))
})
