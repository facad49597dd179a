// @ts-check
// Convene dashboard: small enhancements over pages that work without JavaScript.
// Every form posts and every link navigates without this file; it only makes them nicer.

/** Times written in UTC on the server (`<time data-local>`) are shown in the reader's own zone. */
function localizeTimes(root = document) {
  for (const time of root.querySelectorAll("time[data-local]")) {
    const date = new Date(time.getAttribute("datetime") ?? "")
    if (Number.isNaN(date.getTime())) continue
    time.textContent = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
    time.setAttribute("title", date.toISOString())
  }
}
localizeTimes()

/** Copy buttons: `<button data-copy="input-id">` copies the input's value and says so. */
for (const button of document.querySelectorAll("button[data-copy]")) {
  if (!(button instanceof HTMLButtonElement) || !navigator.clipboard) continue
  button.hidden = false
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy ?? "")
    if (!(source instanceof HTMLInputElement)) return
    try {
      await navigator.clipboard.writeText(source.value)
      announce("Copied to the clipboard")
      button.textContent = "Copied"
      setTimeout(() => (button.textContent = "Copy"), 2000)
    } catch {
      source.select()
      announce("Press Ctrl+C (or ⌘C) to copy")
    }
  })
}

/** Writes a short message where screen readers hear it (the page's status region). */
function announce(message) {
  const region = document.getElementById("announcer")
  if (region) region.textContent = message
}

/**
 * Destructive forms (`data-confirm="..."`) ask first. Without scripts, the server shows a
 * confirmation page instead: a confirmed post carries `confirm=yes`.
 */
for (const form of document.querySelectorAll("form[data-confirm]")) {
  if (!(form instanceof HTMLFormElement)) continue
  form.addEventListener("submit", (event) => {
    if (form.querySelector("input[name=confirm]")) return
    if (!window.confirm(form.dataset.confirm ?? "Are you sure?")) {
      event.preventDefault()
      return
    }
    const confirmed = document.createElement("input")
    confirmed.type = "hidden"
    confirmed.name = "confirm"
    confirmed.value = "yes"
    form.append(confirmed)
  })
}

/** Selects that submit their form on change (the organization switcher). */
for (const form of document.querySelectorAll("form[data-autosubmit]")) {
  if (!(form instanceof HTMLFormElement)) continue
  for (const hidden of form.querySelectorAll("[data-hide-with-js]")) if (hidden instanceof HTMLElement) hidden.hidden = true
  form.querySelector("select")?.addEventListener("change", () => form.requestSubmit())
}

/** "Select all" checkboxes: `data-select-all="name"` ticks every checkbox of that name. */
for (const all of document.querySelectorAll("input[data-select-all]")) {
  if (!(all instanceof HTMLInputElement)) continue
  all.hidden = false
  const label = document.querySelector(`label[for="${all.id}"]`)
  if (label instanceof HTMLElement) label.hidden = false
  all.addEventListener("change", () => {
    for (const box of document.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`)) {
      if (box instanceof HTMLInputElement) box.checked = all.checked
    }
  })
}

/**
 * Live regions that refresh from the server: `data-live="selector"` on a search form re-fetches
 * the same page with the form's query as the user types, and swaps in the part of the page that
 * the selector names. The server renders (and escapes) everything; the new part is parsed as a
 * document and moved in as nodes.
 */
for (const form of document.querySelectorAll("form[data-live]")) {
  if (!(form instanceof HTMLFormElement)) continue
  const selector = form.dataset.live ?? ""
  let timer = 0
  let controller = new AbortController()
  const refresh = async () => {
    controller.abort()
    controller = new AbortController()
    const params = new URLSearchParams(/** @type {any} */ (new FormData(form)))
    const url = `${form.action}?${params}`
    try {
      const response = await fetch(url, { signal: controller.signal, headers: { accept: "text/html" } })
      if (!response.ok) return
      const next = new DOMParser().parseFromString(await response.text(), "text/html").querySelector(selector)
      const current = document.querySelector(selector)
      if (next && current) {
        current.replaceWith(document.adoptNode(next))
        localizeTimes(next)
      }
      history.replaceState(null, "", url)
    } catch {
      // a newer keystroke aborted this one, or the network is gone: the form still submits
    }
  }
  form.addEventListener("input", () => {
    clearTimeout(timer)
    timer = window.setTimeout(refresh, 250)
  })
}

/** Parts of a page that refresh on their own (`data-poll="seconds"`): the door's live counts. */
for (const part of document.querySelectorAll("[data-poll]")) {
  if (!(part instanceof HTMLElement) || !part.id) continue
  const seconds = Math.max(3, Number(part.dataset.poll) || 10)
  setInterval(async () => {
    if (document.hidden) return
    try {
      const response = await fetch(location.href, { headers: { accept: "text/html" } })
      if (!response.ok) return
      const next = new DOMParser().parseFromString(await response.text(), "text/html").getElementById(part.id)
      const current = document.getElementById(part.id)
      if (next && current && next.textContent !== current.textContent) {
        current.replaceWith(document.adoptNode(next))
        localizeTimes(next)
      }
    } catch {
      // offline for a moment: the next round tries again
    }
  }, seconds * 1000)
}

