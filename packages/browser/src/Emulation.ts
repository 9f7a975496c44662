/**
 * Who the browser says it is: a desktop or phone (`mobile`), and where (`location`: locale,
 * Accept-Language, time zone, geolocation). No proxy pool exists here, so the address a site
 * sees stays the server's own; everything the page can ask the browser agrees with the place.
 */
import { acceptLanguageFor } from "@strata/core"
import type { BrowserContextOptions } from "playwright-core"

export interface Place {
  readonly country: string
  readonly languages?: ReadonlyArray<string> | undefined
}

interface CountryFacts {
  readonly timezone: string
  readonly latitude: number
  readonly longitude: number
  /** The locale a browser installed there uses, when it is not `<language>-<country>` of Accept-Language's first entry. */
  readonly locale?: string
}

/** Capital cities (or the largest time zone's main city): a small table of the common countries. */
const countries: Readonly<Record<string, CountryFacts>> = {
  US: { timezone: "America/New_York", latitude: 40.7128, longitude: -74.006 },
  CA: { timezone: "America/Toronto", latitude: 43.6532, longitude: -79.3832 },
  MX: { timezone: "America/Mexico_City", latitude: 19.4326, longitude: -99.1332 },
  BR: { timezone: "America/Sao_Paulo", latitude: -23.5505, longitude: -46.6333 },
  AR: { timezone: "America/Argentina/Buenos_Aires", latitude: -34.6037, longitude: -58.3816 },
  CL: { timezone: "America/Santiago", latitude: -33.4489, longitude: -70.6693 },
  CO: { timezone: "America/Bogota", latitude: 4.711, longitude: -74.0721 },
  PE: { timezone: "America/Lima", latitude: -12.0464, longitude: -77.0428 },
  GB: { timezone: "Europe/London", latitude: 51.5074, longitude: -0.1278 },
  IE: { timezone: "Europe/Dublin", latitude: 53.3498, longitude: -6.2603 },
  FR: { timezone: "Europe/Paris", latitude: 48.8566, longitude: 2.3522 },
  DE: { timezone: "Europe/Berlin", latitude: 52.52, longitude: 13.405 },
  NL: { timezone: "Europe/Amsterdam", latitude: 52.3676, longitude: 4.9041 },
  BE: { timezone: "Europe/Brussels", latitude: 50.8503, longitude: 4.3517 },
  CH: { timezone: "Europe/Zurich", latitude: 47.3769, longitude: 8.5417 },
  AT: { timezone: "Europe/Vienna", latitude: 48.2082, longitude: 16.3738 },
  ES: { timezone: "Europe/Madrid", latitude: 40.4168, longitude: -3.7038 },
  PT: { timezone: "Europe/Lisbon", latitude: 38.7223, longitude: -9.1393 },
  IT: { timezone: "Europe/Rome", latitude: 41.9028, longitude: 12.4964 },
  SE: { timezone: "Europe/Stockholm", latitude: 59.3293, longitude: 18.0686 },
  NO: { timezone: "Europe/Oslo", latitude: 59.9139, longitude: 10.7522 },
  DK: { timezone: "Europe/Copenhagen", latitude: 55.6761, longitude: 12.5683 },
  FI: { timezone: "Europe/Helsinki", latitude: 60.1699, longitude: 24.9384 },
  PL: { timezone: "Europe/Warsaw", latitude: 52.2297, longitude: 21.0122 },
  CZ: { timezone: "Europe/Prague", latitude: 50.0755, longitude: 14.4378 },
  HU: { timezone: "Europe/Budapest", latitude: 47.4979, longitude: 19.0402 },
  RO: { timezone: "Europe/Bucharest", latitude: 44.4268, longitude: 26.1025 },
  GR: { timezone: "Europe/Athens", latitude: 37.9838, longitude: 23.7275 },
  TR: { timezone: "Europe/Istanbul", latitude: 41.0082, longitude: 28.9784 },
  UA: { timezone: "Europe/Kyiv", latitude: 50.4501, longitude: 30.5234 },
  RU: { timezone: "Europe/Moscow", latitude: 55.7558, longitude: 37.6173 },
  IL: { timezone: "Asia/Jerusalem", latitude: 31.7683, longitude: 35.2137 },
  AE: { timezone: "Asia/Dubai", latitude: 25.2048, longitude: 55.2708 },
  SA: { timezone: "Asia/Riyadh", latitude: 24.7136, longitude: 46.6753 },
  EG: { timezone: "Africa/Cairo", latitude: 30.0444, longitude: 31.2357 },
  ZA: { timezone: "Africa/Johannesburg", latitude: -26.2041, longitude: 28.0473 },
  NG: { timezone: "Africa/Lagos", latitude: 6.5244, longitude: 3.3792 },
  KE: { timezone: "Africa/Nairobi", latitude: -1.2921, longitude: 36.8219 },
  IN: { timezone: "Asia/Kolkata", latitude: 28.6139, longitude: 77.209 },
  PK: { timezone: "Asia/Karachi", latitude: 24.8607, longitude: 67.0011 },
  CN: { timezone: "Asia/Shanghai", latitude: 39.9042, longitude: 116.4074 },
  HK: { timezone: "Asia/Hong_Kong", latitude: 22.3193, longitude: 114.1694 },
  TW: { timezone: "Asia/Taipei", latitude: 25.033, longitude: 121.5654 },
  JP: { timezone: "Asia/Tokyo", latitude: 35.6762, longitude: 139.6503 },
  KR: { timezone: "Asia/Seoul", latitude: 37.5665, longitude: 126.978 },
  SG: { timezone: "Asia/Singapore", latitude: 1.3521, longitude: 103.8198 },
  MY: { timezone: "Asia/Kuala_Lumpur", latitude: 3.139, longitude: 101.6869 },
  TH: { timezone: "Asia/Bangkok", latitude: 13.7563, longitude: 100.5018 },
  VN: { timezone: "Asia/Ho_Chi_Minh", latitude: 10.8231, longitude: 106.6297 },
  ID: { timezone: "Asia/Jakarta", latitude: -6.2088, longitude: 106.8456 },
  PH: { timezone: "Asia/Manila", latitude: 14.5995, longitude: 120.9842 },
  AU: { timezone: "Australia/Sydney", latitude: -33.8688, longitude: 151.2093 },
  NZ: { timezone: "Pacific/Auckland", latitude: -36.8485, longitude: 174.7633 }
}

/** "us-generic" and friends (the contract lower-cases and extends the list) mean the US. */
const countryCode = (country: string): string => {
  const code = country.trim().slice(0, 2).toUpperCase()
  return countries[code] !== undefined ? code : "US"
}

/** The context options and extra headers for a place. */
export const placeOptions = (place: Place): { readonly options: BrowserContextOptions; readonly acceptLanguage: string } => {
  const code = countryCode(place.country)
  const facts = countries[code]
  const acceptLanguage = acceptLanguageFor(place)
  // The first Accept-Language entry is the locale; a bare language takes the country's form.
  const first = acceptLanguage.split(",")[0].split(";")[0]
  const locale = first.includes("-") ? first : `${first}-${code}`
  return {
    acceptLanguage,
    options: {
      locale,
      timezoneId: facts.timezone,
      geolocation: { latitude: facts.latitude, longitude: facts.longitude, accuracy: 50 },
      permissions: ["geolocation"]
    }
  }
}

/** Chromium's major version, for user agents that agree with the engine a site detects. */
const major = (version: string): string => version.split(".")[0] || "140"

/** A desktop Chrome on Linux (headless Chromium announces itself as "HeadlessChrome", which sites refuse). */
export const desktopOptions = (browserVersion: string): BrowserContextOptions => ({
  viewport: { width: 1366, height: 900 },
  userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major(browserVersion)}.0.0.0 Safari/537.36`,
  deviceScaleFactor: 1,
  isMobile: false,
  hasTouch: false
})

/** A current Android phone (Pixel 7 class): viewport, device scale, touch and a mobile Chrome user agent. */
export const mobileOptions = (browserVersion: string): BrowserContextOptions => ({
  viewport: { width: 412, height: 915 },
  screen: { width: 412, height: 915 },
  userAgent: `Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major(browserVersion)}.0.0.0 Mobile Safari/537.36`,
  deviceScaleFactor: 2.625,
  isMobile: true,
  hasTouch: true
})
