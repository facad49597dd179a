import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Name search by n-grams in the person's scope (issues 17 and 18). 0006's trigram table answered
 * only terms of three characters or more, and only for all persons at once: a page or a total had
 * to read every matching person's row for its organization and archived state, and a shorter term
 * scanned every name. At 1,000,000 persons the exact total of a common term took 90-150 ms.
 *
 * Two contentless FTS5 tables now hold each person's n-grams as tokens of its scope (organization
 * and active or archived, src/Persons/Keys.ts `searchScope`), each token the scope followed by the
 * n-gram's UTF-8 in hex (`gramToken`; the `ascii` tokenizer keeps such a token whole and folds
 * nothing else, so a match is exactly a substring of the lower-cased `name_key`):
 * - `persons_search_short`: the name's characters and pairs of characters, without positions
 *   (`detail = none`), for terms of one or two characters;
 * - `persons_search`: its trigrams in order, with positions, for longer terms: one of three
 *   characters is a token, a longer one the phrase of its trigrams.
 * A token's rowids are its scope's matching persons in creation order, so a page reads no more
 * than it shows, and `fts5vocab` tables (`persons_search_short_terms`, `persons_search_terms`)
 * count a token's persons from the index alone: the total of a term of two or three characters.
 * `persons_search_counts` keeps that number for each single character (organization, archived 0
 * or 1, character), the total of a one-letter term: `a` is in 92% of 1,000,000 names, and counting
 * its 916,656 index entries took 23 ms (a pair of characters is in at most a third of them).
 *
 * The triggers keep the three in step with `persons` in the statement that changes a person, so
 * every write path (creates, imports, guest lists, archives, renames, SQL typed by hand) updates
 * them in its own transaction. A trigger cannot hold a recursive CTE, so the positions of a name's
 * characters come from `json_each` of an array of as many zeros. Nothing here needs SQLite newer
 * than 3.38 (the service ships 3.5x; an older `sqlite3` shell can still open the file).
 */
const scope = (row: string) => `${row}.organization_id || iif(${row}.archived_at IS NULL, 'a', 'x')`
/** `key` = 0 … length(text) - 1. */
const positions = (text: string) => `json_each('[' || rtrim(replace(hex(zeroblob(length(${text}))), '00', '0,'), ',') || ']')`
/** The row's characters and pairs of characters as tokens (a name's last character has no pair). */
const shortGrams = (row: string) =>
  `(SELECT group_concat(s || hex(substr(${row}.name_key, key + 1, 1))
      || iif(key + 1 < length(${row}.name_key), ' ' || s || hex(substr(${row}.name_key, key + 1, 2)), ''), ' ')
    FROM (SELECT ${scope(row)} AS s), ${positions(`${row}.name_key`)})`
/** The row's trigrams as tokens, in order (their places make a longer term's phrase). */
const trigrams = (row: string) =>
  `(SELECT group_concat(s || hex(substr(${row}.name_key, key + 1, 3)), ' ')
    FROM (SELECT ${scope(row)} AS s), ${positions(`substr(${row}.name_key, 3)`)})`

/**
 * Adds `sign` to the counts of the row's characters, each counted where it first occurs (cheaper
 * than DISTINCT's temporary b-tree: 10 µs less per person imported). Not while
 * `persons_search_counting` holds a row: an import's INSERT counts its batch itself, in one
 * statement (src/Persons/PersonsRepo.ts `insertMany`).
 */
const count = (row: string, sign: 1 | -1) => `
  INSERT INTO persons_search_counts (organization_id, archived, gram, persons)
  SELECT ${row}.organization_id, ${row}.archived_at IS NOT NULL, substr(${row}.name_key, key + 1, 1), ${sign}
  FROM ${positions(`${row}.name_key`)}
  WHERE instr(${row}.name_key, substr(${row}.name_key, key + 1, 1)) = key + 1 AND NOT EXISTS (SELECT 1 FROM persons_search_counting)
  ON CONFLICT DO UPDATE SET persons = persons + excluded.persons;`

const add = (row: string) => `
  INSERT INTO persons_search (rowid, trigrams) VALUES (${row}.id, ${trigrams(row)});
  INSERT INTO persons_search_short (rowid, grams) VALUES (${row}.id, ${shortGrams(row)});${count(row, 1)}`
// a contentless table forgets a row when given the tokens it was given
const remove = (row: string) => `
  INSERT INTO persons_search (persons_search, rowid, trigrams) VALUES ('delete', ${row}.id, ${trigrams(row)});
  INSERT INTO persons_search_short (persons_search_short, rowid, grams) VALUES ('delete', ${row}.id, ${shortGrams(row)});${count(row, -1)}`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TRIGGER persons_search_insert`
  yield* sql`DROP TRIGGER persons_search_delete`
  yield* sql`DROP TRIGGER persons_search_update`
  yield* sql`DROP TABLE persons_search`
  yield* sql`CREATE VIRTUAL TABLE persons_search USING fts5(
    trigrams, content = '', columnsize = 0, detail = full, tokenize = 'ascii'
  )`
  yield* sql`CREATE VIRTUAL TABLE persons_search_short USING fts5(
    grams, content = '', columnsize = 0, detail = none, tokenize = 'ascii'
  )`
  yield* sql`CREATE VIRTUAL TABLE persons_search_terms USING fts5vocab(persons_search, 'row')`
  yield* sql`CREATE VIRTUAL TABLE persons_search_short_terms USING fts5vocab(persons_search_short, 'row')`
  yield* sql`CREATE TABLE persons_search_counts (
    organization_id  INTEGER NOT NULL,
    archived         INTEGER NOT NULL,
    gram             TEXT NOT NULL,
    persons          INTEGER NOT NULL,
    PRIMARY KEY (organization_id, archived, gram)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE TABLE persons_search_counting (by_caller INTEGER NOT NULL) STRICT`
  yield* sql.unsafe(`INSERT INTO persons_search (rowid, trigrams) SELECT p.id, ${trigrams("p")} FROM persons p`)
  yield* sql.unsafe(`INSERT INTO persons_search_short (rowid, grams) SELECT p.id, ${shortGrams("p")} FROM persons p`)
  yield* sql.unsafe(`INSERT INTO persons_search_counts (organization_id, archived, gram, persons)
    SELECT organization_id, archived, gram, count(*) FROM (
      SELECT DISTINCT p.id, p.organization_id, p.archived_at IS NOT NULL AS archived, substr(p.name_key, j.key + 1, 1) AS gram
      FROM persons p, ${positions("p.name_key")} AS j
    ) GROUP BY organization_id, archived, gram`)
  yield* sql`INSERT INTO persons_search (persons_search) VALUES ('optimize')`
  yield* sql`INSERT INTO persons_search_short (persons_search_short) VALUES ('optimize')`
  yield* sql.unsafe(`CREATE TRIGGER persons_search_insert AFTER INSERT ON persons BEGIN ${add("new")}
  END`)
  yield* sql.unsafe(`CREATE TRIGGER persons_search_delete AFTER DELETE ON persons BEGIN ${remove("old")}
  END`)
  yield* sql.unsafe(`CREATE TRIGGER persons_search_update AFTER UPDATE OF name_key, organization_id, archived_at ON persons
    WHEN old.name_key IS NOT new.name_key OR old.organization_id IS NOT new.organization_id
      OR (old.archived_at IS NULL) <> (new.archived_at IS NULL)
  BEGIN ${remove("old")} ${add("new")}
  END`)
})
