/**
 * Which content coding an answer goes out in, from the request's `Accept-Encoding` (RFC 9110
 * §12.5.3): the codings the server offers, in its order of preference (`br` before `gzip`), the
 * one with the highest q-value wins, ties going to the server's order; a coding the header does not
 * name takes `*`'s q-value, else is not acceptable; `q=0` refuses. `identity` is chosen only when no
 * offered coding is acceptable, or when the header gives `identity` itself a higher q-value than
 * every offered coding. Without the header, or with an empty one, the answer is not encoded; nor is
 * it when every coding is refused, `identity` too (the RFC's "SHOULD send no content coding").
 */

export type Coding = "br" | "gzip"

export type Chosen = Coding | "identity"

/** The q-values a header names, by coding in lower case (`x-gzip` read as `gzip`). */
const qValuesOf = (header: string): ReadonlyMap<string, number> => {
  const named = new Map<string, number>()
  for (const entry of header.split(",")) {
    const [name = "", ...params] = entry.split(";")
    const coding = name.trim().toLowerCase()
    if (coding === "") continue
    let q = 1
    for (const param of params) {
      const [key = "", value = ""] = param.split("=")
      if (key.trim().toLowerCase() !== "q") continue
      const parsed = Number(value.trim())
      // a malformed q-value leaves the entry out rather than guessing what it meant
      q = /^\s*(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/.test(value) ? parsed : Number.NaN
    }
    if (Number.isNaN(q)) continue
    const key = coding === "x-gzip" ? "gzip" : coding
    // a coding named twice: its higher q-value
    named.set(key, Math.max(q, named.get(key) ?? 0))
  }
  return named
}

/**
 * The coding to answer in: one of `offered` (the server's order of preference) or `identity`.
 * `preferredCoding("gzip, deflate, br", ["br", "gzip"])` is `"br"`;
 * `preferredCoding("br;q=0, *", ["br", "gzip"])` is `"gzip"`; `preferredCoding(undefined, …)` is `"identity"`.
 */
export const preferredCoding = (header: string | undefined, offered: ReadonlyArray<Coding>): Chosen => {
  if (header === undefined || offered.length === 0) return "identity"
  const named = qValuesOf(header)
  const star = named.get("*")
  let best: Coding | undefined
  let bestQ = 0
  for (const coding of offered) {
    const q = named.get(coding) ?? star ?? 0
    if (q > bestQ) {
      best = coding
      bestQ = q
    }
  }
  if (best === undefined) return "identity"
  const identity = named.get("identity")
  return identity !== undefined && identity > bestQ ? "identity" : best
}

/** A `Vary` header's value with `Accept-Encoding` in it (added to what it already names). */
export const varyOnEncoding = (vary: string | undefined): string =>
  vary === undefined || vary.trim() === ""
    ? "Accept-Encoding"
    : vary.split(",").some((name) => ["accept-encoding", "*"].includes(name.trim().toLowerCase()))
    ? vary
    : `${vary}, Accept-Encoding`
