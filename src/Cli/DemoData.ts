/** The made-up data of `convene demo` (Demo.ts): names, places, a deterministic generator and the demo's calendar. */

export const FIRST = ["Ada", "Grace", "Alan", "Maya", "Noah", "Lea", "Omar", "Ines", "Kenji", "Sofia", "Liam", "Amara", "Jonas", "Priya",
  "Mateo", "Chloe", "Ravi", "Elena", "Tomas", "Hana", "Lucas", "Zoe", "Ibrahim", "Freya", "Diego", "Aiko", "Felix", "Nora",
  "Samuel", "Yara", "Hugo", "Leila", "Oscar", "Mina", "Elias", "Clara"]
export const LAST = ["Lovelace", "Hopper", "Turing", "Okafor", "Schmidt", "Dubois", "Haddad", "Garcia", "Tanaka", "Rossi", "Murphy",
  "Mensah", "Berg", "Sharma", "Lopez", "Martin", "Iyer", "Petrova", "Novak", "Kim", "Silva", "Wright", "Khan", "Larsen",
  "Moreno", "Sato", "Weber", "Costa"]
export const COMPANIES = ["Riverside Bakery", "Northwind", "Blue Heron Books", "Civic Tech Lab", "Harbor Clinic", "Studio Nine", null, null]
export const POSITIONS = ["Owner", "Designer", "Teacher", "Engineer", "Nurse", "Volunteer", "Director", null]
export const CITIES = ["Riverside", "Lakeview", "Millbrook", "Oak Hill"]
export const INTERESTS = ["Music", "Theatre", "Painting", "Photography", "Dance"]
export const SIZES = ["S", "M", "L", "XL"]

/** A small deterministic generator (mulberry32), so every demo is the same. */
export const generator = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Midnight UTC of `today` plus `n` days, at `hour` o'clock UTC. */
export const dayFrom = (today: number) => (n: number, hour = 18) => {
  const date = new Date(today)
  date.setUTCHours(hour, 0, 0, 0)
  date.setUTCDate(date.getUTCDate() + n)
  return date
}

/** The demo's organization lives here; its events' names follow the season of their dates there. */
export const DEMO_ZONE = "America/New_York"

export type Season = "Winter" | "Spring" | "Summer" | "Autumn"

/** The season of an instant in the demo's zone (northern hemisphere, by months: March to May is spring). */
export const seasonOf = (date: Date, timeZone = DEMO_ZONE): Season => {
  const month = Number(new Intl.DateTimeFormat("en-US", { timeZone, month: "numeric" }).format(date))
  return month >= 3 && month <= 5 ? "Spring" : month >= 6 && month <= 8 ? "Summer" : month >= 9 && month <= 11 ? "Autumn" : "Winter"
}

/** The past open-studios day, named for its season. */
export const studiosName = (date: Date) => `${seasonOf(date)} Open Studios`

/** The upcoming concert: in the park from spring to autumn, indoors in winter. */
export const concertOf = (date: Date) => {
  const season = seasonOf(date)
  return season === "Winter"
    ? { name: "Winter Concert at the Arts Center", locationName: "Riverside Arts Center", locationCity: "Riverside", bring: "Warm drinks in the lobby." }
    : { name: `${season} Concert in the Park`, locationName: "Oak Hill Park Bandstand", locationCity: "Oak Hill", bring: "Bring a blanket!" }
}
