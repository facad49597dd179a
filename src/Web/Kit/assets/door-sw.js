// Convene door mode's service worker (served at /door-sw.js, scoped to one door page): without
// network the door page, its files and its list come from the cache, so the page keeps working
// from the list it last loaded. Writes are never cached: door.js queues them itself.
const CACHE = "convene-door"

self.addEventListener("install", () => self.skipWaiting())
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()))

self.addEventListener("fetch", (event) => {
  const request = event.request
  const url = new URL(request.url)
  if (request.method !== "GET" || url.origin !== self.location.origin) return
  // hashed names: a file never changes, the cache answers first
  if (url.pathname.includes("/app/assets/")) {
    event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)))
    return
  }
  if (request.mode !== "navigate" && !url.pathname.endsWith("/guests.json")) return
  // the page and its list: the network first, the last answer kept for when it is away
  const key = url.pathname
  event.respondWith(
    fetch(request).then((response) => {
      if (response.ok && !response.redirected) {
        const copy = response.clone()
        void caches.open(CACHE).then((cache) => cache.put(key, copy))
      }
      return response
    }).catch(() => caches.match(key).then((kept) => kept ?? Response.error()))
  )
})
