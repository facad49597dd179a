/**
 * Contacts in the dashboard (docs/integrators.md#persons, docs/integrators.md#csv-export-and-import):
 * the list and its export (ListRoutes), a contact's page, archiving and unarchiving (ContactRoutes),
 * creating and editing (FormRoutes), the custom-field definitions (FieldsRoutes), and the CSV
 * import (ImportRoutes). Roles are the API's: every role reads contacts and custom-field
 * definitions, Team Members and above write contacts and import, Admins and above define custom
 * fields; payment fields show from Team Member up.
 */
import * as Layer from "effect/Layer"
import { ImportDrafts } from "../Imports/ImportDrafts.js"
import { ContactRoutesLive } from "./ContactRoutes.js"
import { FieldsRoutesLive } from "./FieldsRoutes.js"
import { FormRoutesLive } from "./FormRoutes.js"
import { ImportRoutesLive } from "./ImportRoutes.js"
import { ListRoutesLive } from "./ListRoutes.js"

export const ContactsRoutesLive = Layer.mergeAll(ListRoutesLive, FormRoutesLive, FieldsRoutesLive, ImportRoutesLive, ContactRoutesLive).pipe(
  Layer.provide(ImportDrafts.Default)
)
