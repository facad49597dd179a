// @ts-check
// Convene door: scanning tickets with the camera, where the browser reads QR codes itself
// (`BarcodeDetector`; no library is shipped). Without it, or without JavaScript, the ticket field
// works as it is: this only fills it in and sends it. Once the camera is on, it comes back on by
// itself on the next page (after each check-in) until it is stopped.

const CAMERA_ON = "convene.door.camera"
/** The code sent last and when: the same ticket still held up to the camera is not sent again at once. */
const LAST_SENT = "convene.door.last"
const SAME_CODE_PAUSE_MS = 8000

/** The code in a scanned text (the door address with `ticket=`, or a bare code), else undefined. */
function codeIn(text) {
  const match = /[?&]ticket=([0-9A-Za-z-]+)/.exec(text)
  const code = (match ? match[1] : text).replace(/[\s-]/g, "").toUpperCase()
  return /^[0-9A-HJKMNP-TV-Z]{10}$/.test(code) ? code : undefined
}

async function setUp() {
  const root = document.querySelector("[data-scanner]")
  const form = document.getElementById("ticket-form")
  const field = document.getElementById("ticket-code")
  if (!(root instanceof HTMLElement) || !(form instanceof HTMLFormElement) || !(field instanceof HTMLInputElement)) return
  const Detector = /** @type {any} */ (window).BarcodeDetector
  if (typeof Detector !== "function" || !navigator.mediaDevices?.getUserMedia) return
  try {
    const formats = await Detector.getSupportedFormats()
    if (!formats.includes("qr_code")) return
  } catch {
    return
  }
  const detector = new Detector({ formats: ["qr_code"] })
  const start = root.querySelector("[data-scanner-start]")
  const stop = root.querySelector("[data-scanner-stop]")
  const video = root.querySelector("video")
  const status = root.querySelector("[data-scanner-status]")
  if (!(start instanceof HTMLButtonElement) || !(stop instanceof HTMLButtonElement) || !(video instanceof HTMLVideoElement) || !status) return
  root.hidden = false

  /** @type {MediaStream | null} */
  let stream = null
  let timer = 0
  let sending = false
  let rejected = ""
  const say = (/** @type {string} */ text) => (status.textContent = text)

  const startCamera = async () => {
    if (stream) return
    try {
      // the rear camera where there is one: the screen faces the door staff
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" } }, audio: false })
    } catch (error) {
      sessionStorage.removeItem(CAMERA_ON)
      const blocked = error instanceof DOMException && error.name === "NotAllowedError"
      say(blocked
        ? "The camera is blocked for this page: allow it in the browser's settings, or type the code below."
        : "The camera could not start. Type the code below instead.")
      return
    }
    sessionStorage.setItem(CAMERA_ON, "on")
    video.srcObject = stream
    video.hidden = false
    start.hidden = true
    stop.hidden = false
    await video.play().catch(() => undefined)
    say("Hold a ticket's QR code in front of the camera.")
    scan()
  }

  const stopCamera = (/** @type {boolean} */ forget) => {
    clearTimeout(timer)
    for (const track of stream?.getTracks() ?? []) track.stop()
    stream = null
    video.srcObject = null
    video.hidden = true
    start.hidden = false
    stop.hidden = true
    if (forget) {
      sessionStorage.removeItem(CAMERA_ON)
      say("Camera off.")
    }
  }

  const justSent = (/** @type {string} */ code) => {
    const [last, at] = (sessionStorage.getItem(LAST_SENT) ?? "").split(" ")
    return last === code && Date.now() - Number(at) < SAME_CODE_PAUSE_MS
  }

  const send = (/** @type {string} */ code) => {
    sending = true
    sessionStorage.setItem(LAST_SENT, `${code} ${Date.now()}`)
    field.value = `${code.slice(0, 5)}-${code.slice(5)}`
    say(`Ticket ${field.value} read: checking in…`)
    navigator.vibrate?.(60)
    // the camera comes back on with the next page
    stopCamera(false)
    form.requestSubmit()
  }

  const scan = async () => {
    if (!stream || sending) return
    try {
      if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
        for (const found of await detector.detect(video)) {
          const code = codeIn(found.rawValue ?? "")
          if (code && !justSent(code)) return send(code)
          if (code) {
            if (rejected !== code) say("This ticket was just checked. Show the next one.")
            rejected = code
          } else if (found.rawValue !== rejected) {
            rejected = found.rawValue
            say("That QR code is not a ticket. Try another, or type the code below.")
          }
        }
      }
    } catch {
      // a frame that could not be read: the next one may be
    }
    timer = window.setTimeout(scan, 150)
  }

  start.addEventListener("click", () => void startCamera())
  stop.addEventListener("click", () => stopCamera(true))
  // no camera in the background: off while the page is hidden, back when it shows again
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) stopCamera(false)
    else if (sessionStorage.getItem(CAMERA_ON) === "on" && !sending) void startCamera()
  })
  if (sessionStorage.getItem(CAMERA_ON) === "on") void startCamera()
}

void setUp()
