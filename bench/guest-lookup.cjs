// node bench/guest-lookup.cjs <database>: the guest-link lookup of a status update (GuestsRepo.activeLinks)
// on the event with the most guests of a seeded database (e.g. the one bench/profile.mjs seeds), before
// and after it was driven from the named persons: its query plan and microseconds per lookup of one guest.
const D=require("better-sqlite3");const db=new D(process.argv[2],{readonly:true});
const q=`SELECT g.id FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE g.event_id = ? AND g.removed_at IS NULL AND p.organization_id = ? AND g.person_id IN (SELECT x.id FROM persons x WHERE x.public_id IN (SELECT value FROM json_each(?)))`;
console.log(db.prepare("EXPLAIN QUERY PLAN "+q).all(1,1,"[]").map(r=>r.detail).join(" | "));
const ev=db.prepare("select event_id, count(*) n from event_guests group by event_id order by n desc limit 1").get();
const ids=db.prepare("select p.public_id from event_guests g join persons p on p.id=g.person_id where g.event_id=? limit 1").all(ev.event_id).map(r=>r.public_id);
const org=db.prepare("select organization_id o from persons limit 1").get().o;
const st=db.prepare(q); let t=process.hrtime.bigint(); for(let i=0;i<2000;i++) st.all(ev.event_id, org, JSON.stringify(ids)); console.log("new µs/query", Number(process.hrtime.bigint()-t)/2000/1000, "guests", ev.n, "rows", st.all(ev.event_id, org, JSON.stringify(ids)).length);
const old=db.prepare(`SELECT g.id FROM persons p JOIN event_guests g ON g.person_id = p.id AND g.event_id = ? AND g.removed_at IS NULL WHERE p.organization_id = ? AND p.public_id IN (SELECT value FROM json_each(?))`);
t=process.hrtime.bigint(); for(let i=0;i<2000;i++) old.all(ev.event_id, org, JSON.stringify(ids)); console.log("old µs/query", Number(process.hrtime.bigint()-t)/2000/1000);
