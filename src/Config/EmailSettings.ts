/**
 * Email settings (docs/integrators.md#email-invitations): `SMTP_URL` says where mail leaves, `MAIL_FROM` who sends it. Both
 * or neither: without them, sending answers 409 `email_not_configured`. SMTP_URL may hold a
 * password, so it is kept `Redacted` and never written into a message or a log line.
 */
import type * as Redacted from "effect/Redacted"

export interface EmailSettings {
  /** `smtp://` or `smtps://`, with optional user and password. */
  readonly smtpUrl: Redacted.Redacted<string>
  /** `MAIL_FROM` as given: an address, or a name and an address (`Acme Events <events@acme.org>`). */
  readonly from: string
  /** The address alone. */
  readonly fromAddress: string
  /** The name alone, if `MAIL_FROM` gives one. */
  readonly fromName: string | undefined
}

const ADDRESS = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.?[^\s@<>()",;:\\[\]]*$/

/** `MAIL_FROM`: `address` or `Name <address>`; the problem in words when it is neither. */
export const parseMailFrom = (value: string): { readonly address: string; readonly name: string | undefined } | string => {
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(value.trim())
  const name = named === null ? undefined : named[1]!.replace(/^"(.*)"$/, "$1").trim()
  const address = (named === null ? value : named[2]!).trim()
  if (!ADDRESS.test(address)) return "must be an email address, or a name and an address such as \"Acme Events <events@acme.org>\""
  if (name !== undefined && /[\r\n<>]/.test(name)) return "must not hold line breaks or angle brackets in its name"
  return { address, name: name === "" ? undefined : name }
}

/** `SMTP_URL`: the problem in words, or undefined when it will do. The value is never echoed (it may hold a password). */
export const smtpUrlProblem = (value: string): string | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "must be a URL such as smtps://user:password@mail.example.org:465 (the value is not shown: it may hold a password)"
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    return "must start with smtp:// or smtps:// (the value is not shown: it may hold a password)"
  }
  if (url.hostname === "") return "must name the mail server's host, such as smtp://mail.example.org:587"
  return undefined
}
