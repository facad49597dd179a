/**
 * The files the service reads at run time, found from this module: `src/` when run from source,
 * `dist/src/` once built. The build (scripts/build.mjs) bundles the service into a few modules in
 * `dist/src/`, so every such path is resolved here, at that depth, and means the same in both:
 * - the migrations: `migrations/` and `migrations/pg/` (compiled to `dist/migrations/`);
 * - the dashboard's static files: `src/Web/Kit/assets/` (copied to `dist/src/Web/Kit/assets/`);
 * - the integrator's guide served at /docs/guide: `docs/integrators.md` (copied to `dist/docs/`);
 * - files of installed packages (the API reference's fonts), found as Node finds packages from here;
 * - the project's `package.json` (its version, for `/metrics`): beside `src/`, or two levels above
 *   `dist/src/`.
 */
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

/** SQLite's migrations. */
export const migrationsDirectory = fileURLToPath(new URL("../migrations", import.meta.url))

/** PostgreSQL's migrations. */
export const pgMigrationsDirectory = fileURLToPath(new URL("../migrations/pg", import.meta.url))

/** The dashboard's static files. */
export const ASSETS_FOLDER = new URL("./Web/Kit/assets/", import.meta.url)

/** The integrator's guide (Markdown). */
export const GUIDE_FILE = new URL("../docs/integrators.md", import.meta.url)

/** The path of a file of an installed package (`@fontsource-variable/inter/wght.css`). */
export const packageFile = (specifier: string): string => createRequire(import.meta.url).resolve(specifier)

/** Where the project's `package.json` may be, the nearer first. */
export const PACKAGE_FILES: ReadonlyArray<URL> = [new URL("../package.json", import.meta.url), new URL("../../package.json", import.meta.url)]
