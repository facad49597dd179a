// @ts-check
// Convene door mode's camera (door.js loads it): BarcodeDetector where it reads QR codes, else the
// same-origin jsQR (jsQR.js, Apache-2.0, loaded when first needed).

/** The camera: BarcodeDetector where it reads QR codes, else jsQR (same origin, loaded when first needed). */
export function setUpCamera(/** @type {HTMLElement} */ root, /** @type {(text: string) => unknown} */ onCode) {
  const box = root.querySelector("[data-scanner]")
  const startB = root.querySelector("[data-scanner-start]"), stopB = root.querySelector("[data-scanner-stop]")
  const video = root.querySelector("video"), status = root.querySelector("[data-scanner-status]")
  if (!(box instanceof HTMLElement) || !(startB instanceof HTMLButtonElement) || !(stopB instanceof HTMLButtonElement) || !(video instanceof HTMLVideoElement) || !status) return
  if (!navigator.mediaDevices?.getUserMedia) return
  box.hidden = false
  /** @type {MediaStream | null} */
  let stream = null
  let timer = 0, last = "", lastAt = 0
  /** @type {((v: HTMLVideoElement) => Promise<string | undefined>) | null} */
  let read = null
  const say = (/** @type {string} */ t) => (status.textContent = t)

  const detector = async () => {
    const D = /** @type {any} */ (window).BarcodeDetector
    if (typeof D === "function") {
      try {
        if ((await D.getSupportedFormats()).includes("qr_code")) {
          const d = new D({ formats: ["qr_code"] })
          return async (/** @type {HTMLVideoElement} */ v) => (await d.detect(v))[0]?.rawValue
        }
      } catch { /* the decoder below */ }
    }
    await new Promise((resolve, reject) => {
      const s = document.createElement("script")
      s.src = root.dataset["decoder"] ?? ""
      s.onload = resolve
      s.onerror = reject
      document.head.append(s)
    })
    const canvas = document.createElement("canvas")
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d", { willReadFrequently: true }))
    return async (/** @type {HTMLVideoElement} */ v) => {
      const scale = Math.min(1, 640 / (v.videoWidth || 640))
      canvas.width = Math.round(v.videoWidth * scale)
      canvas.height = Math.round(v.videoHeight * scale)
      if (canvas.width === 0) return undefined
      ctx.drawImage(v, 0, 0, canvas.width, canvas.height)
      const image = ctx.getImageData(0, 0, canvas.width, canvas.height)
      return /** @type {any} */ (window).jsQR(image.data, image.width, image.height, { inversionAttempts: "dontInvert" })?.data
    }
  }

  const tick = async () => {
    if (!stream || !read) return
    try {
      if (video.readyState >= 2) {
        const text = await read(video)
        if (text && (text !== last || Date.now() - lastAt > 3000)) {
          last = text
          lastAt = Date.now()
          navigator.vibrate?.(60)
          await onCode(text)
        }
      }
    } catch { /* a frame that could not be read: the next one may be */ }
    timer = window.setTimeout(tick, 150)
  }
  const stop = () => {
    clearTimeout(timer)
    for (const t of stream?.getTracks() ?? []) t.stop()
    stream = null
    video.hidden = true
    startB.hidden = false
    stopB.hidden = true
  }
  startB.addEventListener("click", async () => {
    try {
      read = read ?? await detector()
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false })
    } catch (error) {
      return say(error instanceof DOMException && error.name === "NotAllowedError" ? "The camera is blocked for this page: allow it in the browser's settings, or type the code." : "The camera could not start. Type the code instead.")
    }
    video.srcObject = stream
    video.hidden = false
    startB.hidden = true
    stopB.hidden = false
    await video.play().catch(() => undefined)
    say("Hold a ticket's QR code in front of the camera.")
    void tick()
  })
  stopB.addEventListener("click", () => { stop(); say("Camera off."); document.getElementById("door-q")?.focus() })
  document.addEventListener("visibilitychange", () => { if (document.hidden) stop() })
}
