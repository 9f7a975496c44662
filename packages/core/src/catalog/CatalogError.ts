/**
 * The catalog's one typed error for a request refused before any tool runs: a provider or
 * capability the registry does not know, a team not allowed to call the catalog, or provider
 * terms its administrator has not accepted. The HTTP adapter decides statuses and codes
 * (404 `unknown_provider`, 403, 403 `THIRD_PARTY_DATA_TERMS_REQUIRED` with `requiresAction`).
 */
import { Schema } from "effect"

/** A call names a provider, or a capability of a known provider, that is not registered. */
export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  index: Schema.Int,
  provider: Schema.String,
  capability: Schema.String,
  message: Schema.String
}) {}

/** The team may not call catalog tools (or list domain tools): access off, or zero data retention on. */
export class CatalogDenied extends Schema.TaggedError<CatalogDenied>()("CatalogDenied", {
  why: Schema.Literals(["no_access", "zero_data_retention"]),
  message: Schema.String
}) {}

/** A provider's terms, at this version, are not accepted for the team. */
export class TermsRequired extends Schema.TaggedError<TermsRequired>()("TermsRequired", {
  provider: Schema.String,
  version: Schema.String,
  url: Schema.String,
  message: Schema.String
}) {}

export class CatalogError extends Schema.TaggedError<CatalogError>()("CatalogError", {
  reason: Schema.Union([UnknownProvider, CatalogDenied, TermsRequired])
}) {
  override get message(): string {
    return this.reason.message
  }
}

export const catalogError = (reason: CatalogError["reason"]): CatalogError => new CatalogError({ reason })
