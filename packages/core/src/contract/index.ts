/** The /v2 contract as Schema: request decoders, normalised request types, response and error bodies, OpenAPI. */
export * from "./Actions.ts"
export * from "./Catalog.ts"
export * from "./Formats.ts"
export * from "./Issues.ts"
export * from "./Parsers.ts"
export * from "./Primitives.ts"
export * from "./Request.ts"
export * from "./RequestBodies.ts"
