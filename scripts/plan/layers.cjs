// The plan of ARCHITECTURE.md as data: the layers of src/ from the ground up, and the features'
// order. Read by .dependency-cruiser.cjs (the import rules), scripts/check-plan.mjs (what a
// dependency rule cannot see) and scripts/plan/figures.mjs (the measures). Change the plan here
// and in ARCHITECTURE.md together.

/** The features, lowest first: a feature imports only features before it in this list. */
const FEATURES = [
  "Changes",
  "Organizations",
  "Auth",
  "Webhooks",
  "Email",
  "Persons",
  "Events",
  "Calendar",
  "Payments",
  "Guests",
  "Invitations",
  "Rsvp",
  "SelfRegistration"
]

/** The platform: machinery that knows no feature. */
const PLATFORM = ["Runtime", "Http", "RateLimit", "Idempotency", "Outbox", "Csv", "Telemetry"]

/** Folders that are edges as a whole: the dashboard, operations pages, the admin CLI, the typed client. */
const EDGE_FOLDERS = ["Web", "Ops", "Cli", "Client"]

const any = (names) => `(${names.join("|")})`

/** Each layer's files, as a regular expression over paths relative to the repository's root. */
const PATHS = {
  kernel: "^src/(Domain|Config)/|^src/Paths\\.ts$",
  database: "^src/Db/",
  platform: `^src/${any(PLATFORM)}/`,
  // every feature's declaration (Api.ts) and handlers (Http.ts), and the edge folders (the
  // dashboard's pages, the RSVP page among them, are src/Web/)
  edge: `^src/${any(EDGE_FOLDERS)}/|^src/[^/]+/(Api|Http)\\.tsx?$`,
  composition: "^src/(Server|main|cli|Announce|Shutdown|Api)\\.ts$"
}

const FEATURE_FILES = `^src/${any(FEATURES)}/`

/** Files only the composition (src/Server.ts, src/main.ts, src/cli.ts) imports. */
const COMPOSED_ONLY = "^src/Api\\.ts$|^src/Outbox/Dispatcher\\.ts$|^src/(?!Outbox/)[^/]+/[A-Za-z]*Channel\\.ts$"
/** ...and who may import them: the composition, and the typed client of the root API. */
const COMPOSERS = "^src/(Server|main|cli)\\.ts$|^src/Client/"

/**
 * Every table and its owner (a feature's folder, or the platform's): only the owner's files write
 * it. Others read it only when it is a lower feature's (a join that a hot path needs): a platform's
 * tables are read through its service, and no table is read from below its owner.
 */
const TABLES = {
  changes: "Changes",
  change_feed_key: "Changes",
  change_feed_pruned: "Changes",
  organizations: "Organizations",
  users: "Organizations",
  memberships: "Organizations",
  member_invitations: "Organizations",
  api_tokens: "Auth",
  access_tokens: "Auth",
  sessions: "Auth",
  webhooks: "Webhooks",
  webhook_messages: "Webhooks",
  webhook_message_parts: "Webhooks",
  outbox_emails: "Email",
  persons: "Persons",
  phones: "Persons",
  sms_consents: "Persons",
  persons_blocks: "Persons",
  persons_search_counting: "Persons",
  persons_search_counts: "Persons",
  custom_fields: "Persons",
  custom_field_options: "Persons",
  person_field_values: "Persons",
  events: "Events",
  event_hosts: "Events",
  purchases: "Payments",
  purchase_items: "Payments",
  refunds: "Payments",
  event_guests: "Guests",
  invites: "Guests",
  rsvp_history: "Guests",
  tickets: "Guests",
  door_links: "Guests",
  invitations: "Invitations",
  reminders_sent: "Invitations",
  outbox_deliveries: "Outbox",
  outbox_instances: "Outbox",
  idempotency_keys: "Idempotency",
  import_drafts: "Web"
}

const LAYERS = ["kernel", "database", "platform", "feature", "edge", "composition"]

/** A file's layer, and its feature when it is a feature's (edge files of a feature are edges). */
const layerOf = (path) => {
  for (const layer of ["kernel", "database", "platform", "edge", "composition"]) {
    if (new RegExp(PATHS[layer]).test(path)) return { layer, feature: undefined }
  }
  const match = new RegExp(FEATURE_FILES).exec(path)
  if (match) return { layer: "feature", feature: match[1] }
  return { layer: "unplaced", feature: undefined }
}

module.exports = { TABLES, FEATURES, PLATFORM, EDGE_FOLDERS, PATHS, FEATURE_FILES, COMPOSED_ONLY, COMPOSERS, LAYERS, layerOf }
