/** @strata/office: readers for every document format of /v2/parse except PDF. */
export { officeReaders } from "./Readers.ts"
