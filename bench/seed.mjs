// Seeds a server through its public API, the same way for Convene and the floor: persons are
// added as guests by email (500 per request), so both hold the same data.
import { client } from "./lib.mjs"

const FIRST = ["Ada", "Grace", "Alan", "Maria", "Marco", "Noah", "Lea", "Omar", "Ines", "Kenji", "Sofia", "Liam", "Amara",
  "Jonas", "Priya", "Mateo", "Chloe", "Ravi", "Elena", "Tomas", "Hana", "Lucas", "Zoe", "Ibrahim", "Freya", "Diego", "Aiko",
  "Felix", "Nora", "Samuel", "Yara", "Hugo", "Leila", "Oscar", "Mina", "Elias", "Clara", "Martin", "Marta", "Emil"]
const LAST = ["Lovelace", "Hopper", "Turing", "Okafor", "Schmidt", "Dubois", "Haddad", "Garcia", "Tanaka", "Rossi", "Murphy",
  "Mensah", "Berg", "Sharma", "Lopez", "Martin", "Iyer", "Petrova", "Novak", "Kim", "Silva", "Wright", "Khan", "Larsen",
  "Moreno", "Sato", "Weber", "Costa", "Nguyen", "Fischer", "Marsh", "Patel", "Andersen", "Oliveira", "Kowalski", "Yilmaz"]

export const personFor = (i) => ({
  firstName: FIRST[i % FIRST.length],
  lastName: `${LAST[Math.floor(i / FIRST.length) % LAST.length]}${i % 7 === 0 ? "-Smith" : ""}`,
  email: `person${i}@bench.example`
})

const STATUSES = ["Accepted", "Declined", "Maybe"]

/**
 * `persons` persons; an event with `small` guests and one with `large` guests, whose histories
 * have 2 or 3 entries. Returns ids the scenarios use.
 */
export const seed = async (url, { persons = 100_000, small = 1_000, large = 5_000, log = () => {} } = {}) => {
  const api = client(url)
  const directory = await api("POST", "/event", { name: "Directory", primaryDate: "2030-01-01T10:00:00Z" })
  const personIds = []
  for (let start = 0; start < persons; start += 500) {
    const guests = []
    for (let i = start; i < Math.min(persons, start + 500); i++) guests.push(personFor(i))
    const added = await api("POST", `/event/${directory.eventId}/guestlist`, { guests })
    for (const g of added.guests) personIds.push(g.personId)
    if (start % 20_000 === 0) log(`  ${start + guests.length} persons`)
  }
  const eventWith = async (name, count, offset) => {
    const event = await api("POST", "/event", { name, primaryDate: "2031-06-01T18:00:00Z" })
    const guests = personIds.slice(offset, offset + count)
    for (let i = 0; i < guests.length; i += 500) {
      await api("POST", `/event/${event.eventId}/guestlist`, { guests: guests.slice(i, i + 500).map((personId) => ({ personId })) })
      // second history entry for everyone, a third for every other guest
      await api("PUT", `/event/${event.eventId}/guestlist`, {
        guests: guests.slice(i, i + 500).map((personId, j) => ({ personId, rsvpStatus: STATUSES[(i + j) % 3] }))
      })
      await api("PUT", `/event/${event.eventId}/guestlist`, {
        guests: guests.slice(i, i + 500).filter((_, j) => j % 2 === 0).map((personId, j) => ({ personId, rsvpStatus: STATUSES[(i + j + 1) % 3] }))
      })
    }
    return { eventId: event.eventId, guests }
  }
  const smallEvent = await eventWith("Small event", small, 0)
  const largeEvent = await eventWith("Large event", large, small)
  return { personIds, smallEvent, largeEvent }
}

/** A ticketed event with purchases (Convene only: the floor has no payments). */
export const seedPayments = async (url, personIds) => {
  const api = client(url)
  const event = await api("POST", "/event", { name: "Gala", primaryDate: "2031-07-01T18:00:00Z", ticketingEnabled: true })
  const guests = personIds.slice(-200)
  await api("POST", `/event/${event.eventId}/guestlist`, { guests: guests.map((personId) => ({ personId })) })
  for (let i = 0; i < guests.length; i += 2) {
    const p = await api("POST", `/event/${event.eventId}/purchase`, {
      items: [
        { personId: guests[i], type: "TICKET", subtotal: 10000, tax: 800, serviceFee: 300 },
        { personId: guests[i + 1], type: "TICKET", subtotal: 10000, tax: 800, serviceFee: 300 },
        { personId: guests[i], type: "DONATION", subtotal: 2500, tax: 0, serviceFee: 0 }
      ]
    })
    if (i % 20 === 0) await api("POST", `/event/${event.eventId}/purchase/${p.purchaseId}/refund`, { amount: 1000, itemId: p.items[0].itemId })
  }
  return { eventId: event.eventId }
}
