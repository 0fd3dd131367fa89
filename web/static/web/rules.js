// Rules for players (issues 32 and 33): /rules and /rules/{game}. The pages themselves are the
// server's, `languages/rules/<game>.<lang>.md` rendered to HTML with the board's own components as
// pictures (`GET games/{game}/rules?format=html`); this module adds the page's chrome around them.
import { GAMES, format, isPseudo, lang, t } from "./i18n.js";
import { Link, gameName, html, useEffect, useState } from "./ui.js";

const LETTERS = /\p{L}/u;

// The pseudo-locale reads the English page: accent and wrap its words as the catalogues' are, so
// the check for hard-coded text sees the page as it sees the chrome.
function pseudoize(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = /** @type {Text} */ (node);
    if (LETTERS.test(text.data)) text.data = format(text.data);
  }
  for (const el of root.querySelectorAll("[title], [aria-label]")) {
    for (const name of ["title", "aria-label"]) {
      const value = el.getAttribute(name);
      if (value && LETTERS.test(value)) el.setAttribute(name, format(value));
    }
  }
}

/** The server's fragment, ready to show: its own H1 gives way to the page's heading. */
function prepare(fragment) {
  const box = document.createElement("template");
  box.innerHTML = fragment;
  box.content.querySelector("h1")?.remove();
  if (isPseudo()) pseudoize(box.content);
  const contents = [...box.content.querySelectorAll("h2[id]")].map((h) => ({ id: h.id, title: h.textContent }));
  return { body: box.innerHTML, contents };
}

export function RulesIndex() {
  useEffect(() => {
    document.title = t("rules.index.document_title");
  }, []);
  return html`<main class="rules">
    <h1>${t("rules.index.heading")}</h1>
    <ul class="rules-index">${GAMES.map(
      (g) => html`<li key=${g}><${Link} href=${`/rules/${g}`}>${gameName(g)}<//>: ${t(`rules.tagline.${g}`)}</li>`,
    )}</ul>
  </main>`;
}

export function RulesPage({ game }) {
  /** @typedef {{ status: string, body?: string, contents?: { id: string, title: string }[] }} Loaded */
  const known = GAMES.includes(game); // an unknown one is not even asked for (no refused request in the console)
  const [page, setPage] = useState(/** @type {Loaded} */ ({ status: known ? "loading" : "missing" }));
  const contents = page.contents || [];
  useEffect(() => {
    document.title = t("rules.page.document_title", { game: gameName(game) });
    if (!known) return undefined;
    let live = true;
    fetch(`/api/v1/games/${encodeURIComponent(game)}/rules?lang=${lang()}&format=html`)
      .then(async (response) => {
        if (response.status === 404) return { status: "missing" };
        if (!response.ok) return { status: "failed" };
        return { status: "ready", ...prepare(await response.text()) };
      })
      .catch(() => ({ status: "failed" }))
      .then((next) => live && setPage(next));
    return () => {
      live = false;
    };
  }, [game]);
  if (page.status === "missing")
    return html`<main class="rules">
      <h1>${t("rules.missing.heading")}</h1>
      <p>${t("rules.missing.text")} <${Link} href="/rules">${t("rules.all")}<//></p>
    </main>`;
  const back = html`<p class="rules-back"><${Link} href="/rules">← ${t("rules.all")}<//></p>`;
  if (page.status !== "ready")
    return html`<main class="rules" aria-busy=${page.status === "loading"}>
      ${back}
      <h1>${t("rules.page.heading", { game: gameName(game) })}</h1>
      <p class="muted">${page.status === "loading" ? t("rules.page.loading") : t("rules.page.failed")}</p>
    </main>`;
  return html`<main class="rules" data-rules=${game}>
    ${back}
    <h1>${t("rules.page.heading", { game: gameName(game) })}</h1>
    ${
      contents.length > 1 &&
      html`<nav class="rules-contents" aria-labelledby="rules-contents-h">
        <p id="rules-contents-h" class="rules-contents-title">${t("rules.page.contents")}</p>
        <ol>${contents.map((c) => html`<li key=${c.id}><a href=${`#${c.id}`}>${c.title}</a></li>`)}</ol>
      </nav>`
    }
    <div class="rules-text" dangerouslySetInnerHTML=${{ __html: page.body }}></div>
    <p class="rules-links">
      <${Link} href="/lobby">${t("rules.page.play", { game: gameName(game) })}<//> · <${Link} href="/rules">${t("rules.page.others")}<//>
    </p>
  </main>`;
}
