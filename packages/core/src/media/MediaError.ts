/**
 * Why the `audio` or `video` format could not be made. Only `ToolMissing` fails the request (the
 * server cannot make the format at all, as a missing browser makes it refuse a screenshot); the
 * others become the format's `null` and a `warning`, since the page itself was scraped.
 */
import { Schema } from "effect"

/** ffmpeg is not installed, or not where `STRATA_FFMPEG_PATH` says. */
export class ToolMissing extends Schema.TaggedError<ToolMissing>()("ToolMissing", {
  tool: Schema.String,
  message: Schema.String
}) {}

/** A manifest or media file could not be fetched (address rules, size cap, HTTP error). */
export class DownloadFailed extends Schema.TaggedError<DownloadFailed>()("DownloadFailed", {
  url: Schema.String,
  message: Schema.String
}) {}

/** The media is of a kind this server does not read: a live stream, DRM encryption, an empty manifest. */
export class UnsupportedMedia extends Schema.TaggedError<UnsupportedMedia>()("UnsupportedMedia", {
  url: Schema.String,
  message: Schema.String
}) {}

/** ffmpeg ran and failed (no sound in the media, a damaged file, codecs MP4 cannot hold). */
export class ConversionFailed extends Schema.TaggedError<ConversionFailed>()("ConversionFailed", {
  message: Schema.String
}) {}

export class MediaError extends Schema.TaggedError<MediaError>()("MediaError", {
  reason: Schema.Union([ToolMissing, DownloadFailed, UnsupportedMedia, ConversionFailed])
}) {
  override get message(): string {
    return this.reason.message
  }
}

export const mediaError = (reason: MediaError["reason"]): MediaError => new MediaError({ reason })
