// The client's words (issue 33). Two kinds of catalogue, one format:
// - its own, `locales/<namespace>.<lang>.json` beside this file (the interface);
// - each game's, `GET games/{game}/i18n/{lang}` (moves, effects, components, refusal reasons): the
//   same catalogue a third-party client reads, so the log is rendered from codes alone.
// A catalogue maps a key to a message: a string with `{name}` placeholders, or an object of CLDR
// plural categories (`one`, `few`, `many`, `other`, …) chosen by the `count` parameter with the
// browser's Intl.PluralRules. Everything is loaded before the first render, so `t` is synchronous.
// The pseudo-locale (`?lang=pseudo`) shows the English text accented and wrapped in ⟦…⟧: a page
// with any unwrapped words has hard-coded text (tests/web check that).

export const LANGUAGES = ["en", "pl", "es"];
export const LANGUAGE_NAMES = { en: "English", pl: "Polski", es: "Español" };
export const PSEUDO = "pseudo";
/** The client's own catalogue files, one set per namespace. */
export const NAMESPACES = ["ui", "account", "rules"];
export const GAMES = ["ekko", "enka", "eko", "ecos"];
const STORED = "tabula.lang";

let current = "en";
let pseudo = false;
/** @type {Record<string, any>} */
let ui = {};
/** @type {Record<string, Record<string, any>>} */
const games = {};

/** The best of LANGUAGES for a list of BCP 47 tags (the browser's, in order), else English. */
export function bestOf(tags) {
  for (const tag of tags || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** `?lang=` (pseudo included), then the stored choice, then the browser's languages. */
export function chosenLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === PSEUDO || LANGUAGES.includes(asked || "")) return /** @type {string} */ (asked);
  let stored = null;
  try {
    stored = localStorage.getItem(STORED);
  } catch (e) {
    stored = null;
  }
  if (stored === PSEUDO || LANGUAGES.includes(stored || "")) return /** @type {string} */ (stored);
  return bestOf(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

/** The language in use: `en`, `pl` or `es` (the pseudo-locale reads English). */
export const lang = () => current;
export const isPseudo = () => pseudo;

async function fetchJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "omit" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

const here = new URL(".", import.meta.url).href;

/** Load every catalogue of the chosen language (and English beneath it for a missing key). */
export async function initI18n(choice = chosenLanguage()) {
  pseudo = choice === PSEUDO;
  current = pseudo ? "en" : choice;
  const wanted = current === "en" ? ["en"] : ["en", current];
  const own = await Promise.all(
    wanted.flatMap((l) => NAMESPACES.map((ns) => fetchJson(`${here}locales/${ns}.${l}.json`).catch(() => ({})))),
  );
  ui = Object.assign({}, ...own);
  const per = await Promise.all(
    GAMES.map((g) =>
      fetchJson(`/api/v1/games/${g}/i18n/${current}`)
        .then((c) => c.messages || {})
        .catch(() => ({})),
    ),
  );
  GAMES.forEach((g, i) => (games[g] = per[i]));
  document.documentElement.lang = current;
}

/** Remember a choice and show the page in it (a reload: every module renders anew). */
export function setLanguage(choice) {
  try {
    localStorage.setItem(STORED, choice);
  } catch (e) {
    /* private mode: for this page only */
  }
  const url = new URL(location.href);
  url.searchParams.delete("lang");
  location.replace(url.href);
}

const ACCENTS = { a: "á", e: "é", i: "í", o: "ö", u: "ü", c: "ç", n: "ñ", A: "Å", E: "É", I: "Î", O: "Ö", U: "Û" };
// Letters outside `{placeholders}` only.
const accent = (s) => s.replace(/(\{\w+\})|[aeioucnAEIOU]/g, (c, placeholder) => placeholder || ACCENTS[c] || c);

/** A message with its parameters filled in; a plural message picks its form by `params.count`. */
export function format(message, params = {}, language = current) {
  let text = message;
  if (message && typeof message === "object") {
    const n = Number(params.count ?? 0);
    const category = new Intl.PluralRules(language).select(n);
    text = message[category] ?? message.other;
  }
  if (typeof text !== "string") return null;
  if (pseudo) text = accent(text);
  const filled = text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? formatValue(params[name]) : whole));
  return pseudo ? `⟦${filled}⟧` : filled;
}

const formatValue = (v) => (typeof v === "number" ? formatNumber(v) : String(v));

/** The interface's text for `key`; the key itself (and a warning) when no catalogue has it. */
export function t(key, params = {}) {
  const text = format(ui[key], params);
  if (text !== null) return text;
  console.warn(`i18n: no message ${key}`);
  return key;
}

/** Whether a game's catalogue has `key` (for optional entries such as a card's name). */
export const gameHas = (game, key) => key in (games[game] || {});

/** A game's catalogue as a function: `gameT("ecos")("card.12.name")`. */
export function gameT(game) {
  return (key, params = {}) => {
    const text = format(games[game]?.[key], params);
    if (text !== null) return text;
    console.warn(`i18n: no message ${game}:${key}`);
    return key;
  };
}

/** A number in the language's digits and separators. */
export const formatNumber = (n, options = {}) => new Intl.NumberFormat(current, options).format(n);

/**
 * A date and time (`dateStyle: medium`, `timeStyle: short` unless told).
 * @param {string | number | Date | null | undefined} iso
 * @param {Intl.DateTimeFormatOptions} [options]
 */
export function formatDate(iso, options = { dateStyle: "medium", timeStyle: "short" }) {
  if (!iso) return "";
  return new Intl.DateTimeFormat(current, options).format(new Date(iso));
}

/** A relative time, `-90` seconds → "1 minute ago" / "1 minutę temu" / "hace 1 minuto". */
export function formatRelative(seconds) {
  const rtf = new Intl.RelativeTimeFormat(current, { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 60) return rtf.format(Math.round(seconds), "second");
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return rtf.format(Math.round(seconds / 3600), "hour");
  return rtf.format(Math.round(seconds / 86400), "day");
}

/** A list, "a, b and c" / "a, b i c" / "a, b y c". */
export const formatList = (items) => new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(items);
