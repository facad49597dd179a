// The kit's templates under their former name, while the pages move into their areas (src/Web/<Area>/).
export * from "./Kit/Components.js"
export * from "./Kit/Fields.js"
export * from "./Kit/Layout.js"
