// @ts-check
// Convene door mode's rules and helpers (door.js loads it): a ticket's code in a text, the counter,
// keys for the queue, and DOM nodes made without HTML strings.

/** @typedef {{ id: string, name: string, email?: string, rsvp: string, in: boolean, code: string | null, waiting?: boolean }} Entry */
/** @typedef {{ key: string, id: string, name: string, undo: boolean, confirm: boolean, state: "waiting" | "refused", message?: string }} Queued */

/** The code in a scanned or typed text (the door address with `ticket=`, or a bare code), else undefined. */
export function codeIn(/** @type {string} */ text) {
  const match = /[?&]ticket=([0-9A-Za-z-]+)/.exec(text)
  const code = (match ? match[1] : text).replace(/[\s\-_.]/g, "").toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0")
  return /^[0-9A-HJKMNP-TV-Z]{10}$/.test(code) ? code : undefined
}

/** The door's counter: Accepted guests checked in, of Accepted guests; who came without a yes apart. */
export function countsOf(/** @type {Iterable<Entry>} */ entries) {
  let checkedIn = 0, expected = 0, extra = 0
  for (const e of entries) {
    if (e.rsvp === "Accepted") { expected++; if (e.in) checkedIn++ } else if (e.in) extra++
  }
  return { checkedIn, expected, extra }
}

export const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`)


export const el = (/** @type {string} */ tag, /** @type {string} */ cls = "", /** @type {string} */ text = "") => {
  const node = document.createElement(tag)
  if (cls) node.className = cls
  if (text) node.textContent = text
  return node
}
export const button = (/** @type {string} */ text, /** @type {string} */ cls, /** @type {() => void} */ onClick, /** @type {string} */ label = "") => {
  const b = /** @type {HTMLButtonElement} */ (el("button", cls, text))
  b.type = "button"
  if (label) b.setAttribute("aria-label", label)
  b.addEventListener("click", onClick)
  return b
}

