// @ts-check
// Convene dashboard: a new event's form starts in the reader's own time zone. Without this file
// the server's default stays (the zone the organization's events use most, else UTC).

const form = document.querySelector("form[data-browser-zone]")
const select = form?.querySelector("select[name=timezone]")
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
if (select instanceof HTMLSelectElement && zone && select.value !== zone) {
  const option = Array.from(select.options).find((o) => o.value === zone)
  if (option) {
    select.value = zone
    const hint = document.getElementById(`${select.id}-hint`)
    if (hint) hint.textContent = `${hint.textContent} Set to your browser's zone.`
  }
}
