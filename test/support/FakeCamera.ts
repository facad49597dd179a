/**
 * A fake camera's video for Chromium (`--use-file-for-fake-video-capture=<file>.y4m`): one frame
 * of a QR code, black on white, as a Y4M file (4:2:0, the chroma planes grey).
 */
import { writeFileSync } from "node:fs"
import * as QRCode from "qrcode"

export const qrVideo = (path: string, text: string, width = 640, height = 480) => {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" })
  const n = modules.size
  const scale = Math.floor(Math.min(width, height) / (n + 8))
  const left = Math.floor((width - n * scale) / 2)
  const top = Math.floor((height - n * scale) / 2)
  const luma = Buffer.alloc(width * height, 235)
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (!modules.get(y, x)) continue
      for (let dy = 0; dy < scale; dy++) luma.fill(16, (top + y * scale + dy) * width + left + x * scale, (top + y * scale + dy) * width + left + (x + 1) * scale)
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128)
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`)
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma, chroma])
  writeFileSync(path, Buffer.concat([header, frame, frame]))
}
