// The API's shapes for `tsc --checkJs` (make check), taken from the types openapi-typescript
// generates from docs/openapi.yaml into web/tooling/generated/. Nothing here runs in the browser.
/** @typedef {import("../../generated/api").components["schemas"]} Schemas */
/** @typedef {Schemas["Match"]} Match */
/** @typedef {Schemas["MatchState"]} MatchState */
/** @typedef {Schemas["Event"]} MatchRecord */
/** @typedef {Schemas["MoveSubmitOutput"]} MoveSubmitOutput */
/** @typedef {Schemas["Problem"]} Problem */
/** @typedef {Schemas["TimelineEntry"]} TimelineEntry */
/** @typedef {Schemas["Tournament"]} Tournament */
/** @typedef {Schemas["MeOutput"]} Me */
export {};
