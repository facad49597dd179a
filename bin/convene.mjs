#!/usr/bin/env node
// The admin CLI of an installed Convene (`npx convene ...`); from a clone, use `npm run cli -- ...`.
import "../dist/src/cli.js"
