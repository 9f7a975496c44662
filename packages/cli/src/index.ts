/** @strata/cli: the command line, importable for tests and embedding. */
export { main, optionsFromFlags, USAGE, type Io } from "./Cli.ts"
export { accounts, ACCOUNTS_USAGE, settingsFromFlags } from "./Accounts.ts"
