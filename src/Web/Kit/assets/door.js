// @ts-check
// Convene door mode (CONTRACT §17): the whole list searched as one types; check-in and undo without
// a page load (JSON, kept by Idempotency-Key); scans (door-camera.js), the express mode, the last 10
// scans; offline, the list last loaded and a queue sent when the network is back (door-sw.js).
const root = document.getElementById("door")
const q = document.getElementById("door-q")
const list = document.getElementById("door-list")
/** @typedef {import("./door-kit.js").Entry} Entry */
/** @typedef {import("./door-kit.js").Queued} Queued */
/** @type {typeof import("./door-kit.js")} */
const { button, codeIn, countsOf, el, newKey } = root instanceof HTMLElement ? await import(root.dataset["kit"] ?? "") : /** @type {any} */ ({})
if (root instanceof HTMLElement && q instanceof HTMLInputElement && list) start(root, q, list)

function start(/** @type {HTMLElement} */ root, /** @type {HTMLInputElement} */ q, /** @type {HTMLElement} */ list) {
  const base = root.dataset["base"] ?? "", csrf = root.dataset["csrf"] ?? "", withEmail = root.dataset["email"] === "1", canWrite = root.dataset["write"] === "1"
  const STORE = `convene.door:${base}`, QUEUE = `${STORE}:queue`, EXPRESS = "convene.door.express"
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id))
  const resultBox = $("door-result"), countText = $("door-count-text"), countExtra = $("door-count-extra")
  const resultCount = $("door-result-count"), queueBox = $("door-queue")
  /** @type {Map<string, Entry>} */
  let byId = new Map()
  /** @type {Map<string, Entry>} */
  let byCode = new Map()
  /** @type {Array<Queued>} */
  let queue = JSON.parse(localStorage.getItem(QUEUE) ?? "[]")
  /** @type {Array<{ text: string, tone: string }>} */
  const scans = []
  let express = localStorage.getItem(EXPRESS) === "on"
  for (const pager of root.querySelectorAll(".pager")) pager.remove()
  const setList = (/** @type {Array<Entry>} */ entries) => {
    byId = new Map(entries.map((e) => [e.id, e]))
    byCode = new Map(entries.filter((e) => e.code).map((e) => [/** @type {string} */ (e.code), e]))
    for (const op of queue) {
      const e = byId.get(op.id)
      if (e && op.state === "waiting") Object.assign(e, { in: !op.undo, waiting: true })
    }
  }
  const save = () => {
    try { localStorage.setItem(STORE, JSON.stringify([...byId.values()].map(({ waiting, ...e }) => e))) } catch { /* full: kept in memory */ }
  }
  const saveQueue = () => localStorage.setItem(QUEUE, JSON.stringify(queue))
  const renderCounts = () => {
    const c = countsOf(byId.values())
    countText.replaceChildren(el("strong", "", String(c.checkedIn)), " checked in of ", el("strong", "", String(c.expected)), " expected")
    countExtra.textContent = `Expected: guests who answered yes (Accepted).${c.extra > 0 ? ` Also ${c.extra} checked in without a yes.` : ""}`
  }

  const renderList = () => {
    const term = q.value.trim().toLowerCase()
    const code = codeIn(q.value)
    const all = [...byId.values()]
    const found = code ? all.filter((e) => e.code === code) : term === "" ? all : all.filter((e) => e.name.toLowerCase().includes(term) || (withEmail && (e.email ?? "").toLowerCase().includes(term)))
    resultCount.textContent = term === "" ? `${found.length} guests, by name` : `${found.length} ${found.length === 1 ? "guest matches" : "guests match"} “${q.value.trim()}”`
    list.replaceChildren(...found.slice(0, 50).map((g) => {
      const li = el("li", g.in ? "is-in" : "")
      const who = el("div", "door-guest")
      who.append(el("span", "name", g.name))
      if (g.email !== undefined) who.append(el("span", "sub", g.email))
      who.append(el("span", "sub", `RSVP ${g.rsvp}${g.in ? " · Checked in" : ""}${g.waiting ? " · waiting to send" : ""}`))
      const action = el("div", "door-action")
      if (!canWrite) action.append(el("span", "muted", g.in ? "✓ Checked in" : "Not checked in"))
      else if (g.in) action.append(el("span", "badge good", "✓ Checked in"), button("Undo", "secondary small", () => act(g, true, false), `Undo check-in of ${g.name}`))
      else action.append(button("Check in", "big", () => act(g, false, false), `Check in ${g.name}`))
      li.append(who, action)
      return li
    }))
    renderCounts()
  }

  const renderQueue = () => {
    queueBox.hidden = queue.length === 0
    if (queue.length === 0) return queueBox.replaceChildren()
    const waiting = queue.filter((op) => op.state === "waiting").length
    const items = queue.map((op) => el("li", op.state, op.state === "waiting" ? `↻ ${op.name}: ${op.undo ? "undo" : "check-in"} waiting to send` : `✕ ${op.name}: refused by the server. ${op.message ?? ""}`))
    const ul = el("ul", "plain-list")
    ul.append(...items)
    queueBox.replaceChildren(el("h2", "", navigator.onLine ? `Sending ${waiting} check-ins…` : `Offline: ${waiting} check-ins waiting to send`), ul)
    if (waiting === 0) queueBox.append(button("Clear", "secondary small", () => { queue = []; saveQueue(); renderQueue() }))
  }

  const LABEL = { done: "✓ Done", confirm: "? Needs confirmation", refused: "✕ Refused", waiting: "↻ Waiting to send" }
  /** The big answer of the last action, in text and icon (not colour alone); the field cleared and focused. */
  const show = (/** @type {keyof typeof LABEL} */ tone, /** @type {string} */ message, /** @type {Array<HTMLElement>} */ actions = []) => {
    const box = el("div", `door-result ${tone}${express ? " express" : ""}`)
    const text = el("p", "door-result-text")
    text.append(el("span", "door-result-label", LABEL[tone]), el("span", "", message))
    box.append(text, ...actions)
    resultBox.replaceChildren(box)
    q.value = ""
    renderList()
    // a confirmation's button takes the focus; after anything else, the field, ready for the next guest
    if (tone === "confirm" && actions.length > 0) actions[0]?.querySelector("button")?.focus()
    else q.focus()
    window.scrollTo({ top: 0, behavior: "instant" })
  }
  const scanned = (/** @type {string} */ text, /** @type {string} */ tone) => {
    scans.unshift({ text, tone })
    scans.length = Math.min(scans.length, 10)
    const box = document.getElementById("door-scans")
    const ol = box?.querySelector("ol")
    if (!box || !ol) return
    box.hidden = false
    ol.replaceChildren(...scans.map((s) => el("li", s.tone, s.text)))
  }

  const apply = (/** @type {any} */ guest) => {
    if (!guest) return
    const old = byId.get(guest.id)
    byId.set(guest.id, { ...guest, code: guest.code ?? old?.code ?? null })
    if (guest.code ?? old?.code) byCode.set(guest.code ?? old?.code, /** @type {Entry} */ (byId.get(guest.id)))
    save()
  }

  const post = async (/** @type {Queued} */ op) => {
    const body = new URLSearchParams({ _csrf: csrf, confirm: op.confirm ? "1" : "" })
    const response = await fetch(`${base}/${encodeURIComponent(op.id)}${op.undo ? "/undo" : ""}`, {
      method: "POST", body, credentials: "same-origin", headers: { accept: "application/json", "idempotency-key": op.key }
    })
    if (response.status >= 500) throw new TypeError("server unavailable")
    if (!(response.headers.get("content-type") ?? "").includes("application/json")) return { outcome: "Refused", tone: "refused", message: "Not sent: the page expired. Reload it (sign in again if asked)." }
    return response.json()
  }

  /** A tap: the door's rules first (already in: said; not Accepted: a confirmation naming the status). */
  const act = async (/** @type {Entry} */ g, /** @type {boolean} */ undo, /** @type {boolean} */ confirm) => {
    if (!undo && g.in) return show("refused", `${g.name} is already checked in. Nothing was changed.`)
    if (!undo && g.rsvp !== "Accepted" && !confirm) {
      const row = el("div", "door-confirm")
      row.append(button(`Check in anyway (${g.rsvp})`, "big", () => act(g, false, true)), button("Cancel", "secondary", () => show("refused", `${g.name} was not checked in.`)))
      return show("confirm", `${g.name} answered ${g.rsvp}, not Accepted. Check them in anyway?`, [row])
    }
    /** @type {Queued} */
    const op = { key: newKey(), id: g.id, name: g.name, undo, confirm, state: "waiting" }
    try {
      const answer = await post(op)
      apply(answer.guest)
      const tone = answer.tone === "done" ? "done" : answer.tone === "confirm" ? "confirm" : "refused"
      const actions = answer.outcome === "CheckedIn" ? [button("Undo", "secondary", () => act(/** @type {Entry} */ (byId.get(g.id)), true, false), `Undo check-in of ${g.name}`)] : []
      show(tone, answer.message, actions.map((b) => { const d = el("div"); d.append(b); return d }))
    } catch {
      queue.push(op)
      saveQueue()
      Object.assign(g, { in: !undo, waiting: true })
      renderQueue()
      show("waiting", `${g.name} ${undo ? "check-in undone" : "checked in"} here; no network: sent when it is back.`)
    }
  }

  let flushing = false
  const flush = async () => {
    if (flushing || !queue.some((op) => op.state === "waiting")) return
    flushing = true
    try {
      for (const op of queue.filter((o) => o.state === "waiting")) {
        const answer = await post(op)
        if (answer.outcome === "Removed" || answer.tone === "refused" && answer.outcome !== "AlreadyIn" && answer.outcome !== "NotIn") {
          Object.assign(op, { state: "refused", message: answer.message })
          const e = byId.get(op.id)
          if (e) Object.assign(e, { in: false, waiting: false })
        } else {
          queue = queue.filter((o) => o !== op)
          if (answer.guest) apply({ ...answer.guest, waiting: false })
        }
        saveQueue()
      }
    } catch { /* still offline: the next try sends the rest */ }
    flushing = false
    renderQueue()
    renderList()
  }

  const scan = async (/** @type {string} */ text) => {
    const code = codeIn(text)
    if (!code) { scanned(`✕ Not a ticket: ${text.slice(0, 40)}`, "refused"); return show("refused", "That is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD.") }
    const shown = `${code.slice(0, 5)}-${code.slice(5)}`
    const g = byCode.get(code)
    if (!g) {
      if (!navigator.onLine) { scanned(`✕ ${shown}: unknown code`, "refused"); return show("refused", `Unknown ticket ${shown}. Nothing was changed.`) }
      try {
        const body = new URLSearchParams({ _csrf: csrf, ticket: code, confirm: "" })
        const r = await fetch(`${base}/ticket`, { method: "POST", body, credentials: "same-origin", headers: { accept: "application/json", "idempotency-key": newKey() } })
        const answer = await r.json()
        apply(answer.guest)
        scanned(`${answer.tone === "done" ? "✓" : "✕"} ${shown}: ${answer.message}`, answer.tone)
        return show(answer.tone === "done" ? "done" : answer.tone === "confirm" ? "confirm" : "refused", answer.message)
      } catch {
        scanned(`✕ ${shown}: unknown code`, "refused")
        return show("refused", `Unknown ticket ${shown}. Nothing was changed.`)
      }
    }
    const verdict = g.in ? "already checked in" : g.rsvp !== "Accepted" ? `needs confirmation (${g.rsvp})` : express ? "checked in" : "ready"
    scanned(`${g.in ? "✕" : g.rsvp !== "Accepted" ? "?" : "✓"} ${shown}: ${g.name}, ${verdict}`, g.in ? "refused" : g.rsvp !== "Accepted" ? "confirm" : "done")
    if (express || g.in || g.rsvp !== "Accepted") return act(g, false, false)
    const row = el("div", "door-confirm")
    row.append(button(`Check in ${g.name}`, "big", () => act(g, false, false)))
    return show("confirm", `Ticket of ${g.name} (RSVP ${g.rsvp}), not checked in yet.`, [row])
  }

  // the search field: results as one types; Enter with a code (a keyboard-wedge scanner) scans it
  q.addEventListener("input", renderList)
  document.getElementById("door-search")?.addEventListener("submit", (event) => {
    event.preventDefault()
    if (codeIn(q.value)) void scan(q.value)
    else renderList()
  })
  // the search field reads codes (typed, pasted, or a scanner's): the form for them alone goes
  const ticketForm = document.querySelector(".ticket-form"), ticketField = document.getElementById("ticket-code")
  if (ticketForm instanceof HTMLElement) ticketForm.hidden = true
  ticketForm?.addEventListener("submit", (event) => {
    event.preventDefault()
    if (ticketField instanceof HTMLInputElement) { void scan(ticketField.value); ticketField.value = "" }
  })

  const expressBox = document.getElementById("door-express")
  if (expressBox instanceof HTMLInputElement) {
    expressBox.checked = express
    expressBox.addEventListener("change", () => { express = expressBox.checked; localStorage.setItem(EXPRESS, express ? "on" : "off") })
  }

  const load = async () => {
    try {
      const r = await fetch(`${base}/guests.json`, { credentials: "same-origin", headers: { accept: "application/json" } })
      if (!r.ok || !(r.headers.get("content-type") ?? "").includes("application/json")) return
      setList((await r.json()).entries)
      save()
      renderList()
      root.dataset["loaded"] = "1"
    } catch { /* offline: the list kept from last time */ }
  }
  const kept = localStorage.getItem(STORE)
  if (kept) { setList(JSON.parse(kept)); renderList() }
  renderQueue()
  void load().then(flush)
  window.addEventListener("online", () => void flush().then(load))
  window.addEventListener("offline", renderQueue)
  setInterval(() => { if (navigator.onLine) void flush().then(() => (queue.length === 0 ? load() : undefined)) }, 15000)

  // offline: the page and its files kept by the service worker
  if ("serviceWorker" in navigator && root.dataset["sw"]) {
    navigator.serviceWorker.register(root.dataset["sw"], { scope: base }).then(async () => {
      const cache = await caches.open("convene-door")
      const files = [...document.querySelectorAll("link[rel=stylesheet], link[rel=icon], script[src]")].map((n) => n.getAttribute("href") ?? n.getAttribute("src") ?? "")
      await cache.addAll([...files, ...["decoder", "kit", "camera"].map((k) => root.dataset[k] ?? "")].filter((f) => f !== ""))
      const page = await fetch(base, { credentials: "same-origin" })
      if (page.ok && !page.redirected) await cache.put(base, page)
    }).catch(() => undefined)
  }

  void import(root.dataset["camera"] ?? "").then((camera) => camera.setUpCamera(root, scan))
}
