// Preload (`node --require bench/heap-sampling.cjs dist/src/main.js`): V8's sampling heap profiler,
// keeping the objects that garbage collection has already freed, so that the profile shows how
// much each function allocates (what the GC then has to collect), not what is still alive.
// SIGUSR2 starts sampling; the next SIGUSR2 writes the profile to $HEAP_PROFILE_OUT. Nothing of the
// service changes. Summarise it with bench/profile-heap-owners.mjs.
const inspector = require("node:inspector")
const { writeFileSync } = require("node:fs")
const session = new inspector.Session()
session.connect()
let sampling = false
process.on("SIGUSR2", () => {
  if (!sampling) {
    sampling = true
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
    return
  }
  session.post("HeapProfiler.stopSampling", (error, result) => {
    sampling = false
    if (error) return console.error(error)
    writeFileSync(process.env.HEAP_PROFILE_OUT ?? "heap.heapprofile", JSON.stringify(result.profile))
  })
})
