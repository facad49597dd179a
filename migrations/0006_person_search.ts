import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
/**
 * Substring search over names through an FTS5 index with the trigram tokenizer: a query of three
 * characters or more finds names containing it without scanning every person. The index follows
 * `persons.name_key` through triggers, so the transaction that changes a name changes the index.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE VIRTUAL TABLE persons_search USING fts5(
    name_key, content = 'persons', content_rowid = 'id', tokenize = 'trigram'
  )`
  yield* sql`INSERT INTO persons_search (persons_search) VALUES ('rebuild')`
  yield* sql`CREATE TRIGGER persons_search_insert AFTER INSERT ON persons BEGIN
    INSERT INTO persons_search (rowid, name_key) VALUES (new.id, new.name_key);
  END`
  yield* sql`CREATE TRIGGER persons_search_delete AFTER DELETE ON persons BEGIN
    INSERT INTO persons_search (persons_search, rowid, name_key) VALUES ('delete', old.id, old.name_key);
  END`
  yield* sql`CREATE TRIGGER persons_search_update AFTER UPDATE OF name_key ON persons BEGIN
    INSERT INTO persons_search (persons_search, rowid, name_key) VALUES ('delete', old.id, old.name_key);
    INSERT INTO persons_search (rowid, name_key) VALUES (new.id, new.name_key);
  END`
})
