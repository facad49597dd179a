// The kit's machinery under its former name, while the pages move into their areas (src/Web/<Area>/).
export { type Form } from "./Kit/Form.js"
export { pageHeaders } from "./Kit/Headers.js"
export { type PageError, type SignedInUser, type Viewer } from "./Kit/Viewer.js"
export { Web } from "./Kit/Web.js"
