/**
 * Why an artifact link was refused. The store says what is wrong with the link in its own
 * words; only the HTTP adapter (`packages/http/src/ErrorReply.ts`) turns a reason into a status.
 * The checks run in this order, so a reason never tells more than the link already proves:
 * the name, then the signature, then the expiry, then the file.
 */
import { Schema } from "effect"

/** The file name is not one the store hands out (a path, another extension, a guess). */
export class MalformedLink extends Schema.TaggedError<MalformedLink>()("MalformedLink", {
  message: Schema.String
}) {}

/** `sig` is missing or does not sign this name and expiry: the link was altered or made up. */
export class BadSignature extends Schema.TaggedError<BadSignature>()("BadSignature", {
  message: Schema.String
}) {}

/** A genuine link whose lifetime is over; `expiredAt` in epoch milliseconds. */
export class LinkExpired extends Schema.TaggedError<LinkExpired>()("LinkExpired", {
  message: Schema.String,
  expiredAt: Schema.Number
}) {}

/** A genuine, unexpired link whose file is gone (the size cap evicted it, or the folder was emptied). */
export class ArtifactMissing extends Schema.TaggedError<ArtifactMissing>()("ArtifactMissing", {
  message: Schema.String
}) {}

export class ArtifactError extends Schema.TaggedError<ArtifactError>()("ArtifactError", {
  reason: Schema.Union([MalformedLink, BadSignature, LinkExpired, ArtifactMissing])
}) {
  override get message(): string {
    return this.reason.message
  }
}

export const artifactError = (reason: ArtifactError["reason"]): ArtifactError => new ArtifactError({ reason })

/** The store could not be set up: the data folder or the secret file cannot be written or read. */
export class ArtifactSetupError extends Schema.TaggedError<ArtifactSetupError>()("ArtifactSetupError", {
  message: Schema.String
}) {}
