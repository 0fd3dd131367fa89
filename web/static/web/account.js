// The account part of the settings page (issue 32): e-mail address, password, API tokens, the
// people one blocks, going away, and deleting the account. Each panel saves on its own.
import { del, get, patch, post, session } from "./api.js";
import { t } from "./i18n.js";
import { ErrorNote, Link, html, navigate, useEffect, useState, when, withParts } from "./ui.js";

/** @typedef {import("./types.js").Me} Me */

export const BLOCK_SCOPES = ["all", "games", "messages"];
/** A block's scope (an API code) in words: "all" → "everything". Circles' block form uses it too. */
export const scopeName = (scope) => (BLOCK_SCOPES.includes(scope) ? t(`account.block_scope.${scope}`) : scope);

function EmailPanel({ me, onSaved }) {
  const [error, setError] = useState(null);
  const [done, setDone] = useState(false);
  const submit = (e) => {
    e.preventDefault();
    const email = String(new FormData(e.target).get("email") || "").trim();
    setError(null);
    setDone(false);
    patch("me", { email })
      .then((m) => {
        setDone(true);
        onSaved(m);
      })
      .catch(setError);
  };
  return html`<section aria-labelledby="email-h">
    <h2 id="email-h">${t("account.email.heading")}</h2>
    <p class="muted">${t("account.email.explain")}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label=${t("account.email.heading")}>
      <label>${t("account.email.label")} <input type="email" name="email" autocomplete="email" defaultValue=${me.email || ""} /></label>
      <button type="submit">${t("account.email.save")}</button>
      ${done && html` <span role="status" data-email-saved>${t("account.settings.saved")}</span>`}
    </form>
  </section>`;
}

function PasswordPanel() {
  const [error, setError] = useState(null);
  const [done, setDone] = useState(false);
  const submit = (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    setError(null);
    setDone(false);
    post("me/password", { current_password: form.get("current"), new_password: form.get("new") })
      .then(() => {
        /** @type {HTMLFormElement} */ (e.target).reset();
        setDone(true);
      })
      .catch(setError);
  };
  return html`<section aria-labelledby="password-h">
    <h2 id="password-h">${t("account.password.heading")}</h2>
    <p class="muted">${t("account.password.explain")}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label=${t("account.password.change")}>
      <label>${t("account.password.current")} <input type="password" name="current" autocomplete="current-password" required /></label>
      <label>${t("account.password.new")} <input type="password" name="new" autocomplete="new-password" minlength="8" required /></label>
      <button type="submit">${t("account.password.change")}</button>
      ${done && html` <span role="status" data-password-changed>${t("account.password.changed")}</span>`}
    </form>
  </section>`;
}

// The server labels the token a sign-in makes "sign-in" (accounts.services): a code, said in words.
const tokenLabel = (label) =>
  label === "sign-in"
    ? t("account.tokens.sign_in")
    : label || html`<span class="muted">${t("account.tokens.no_label")}</span>`;

function TokensPanel() {
  const [tokens, setTokens] = useState(null);
  const [fresh, setFresh] = useState(null);
  const [error, setError] = useState(null);
  const load = () => get("me/tokens").then(setTokens).catch(setError);
  useEffect(() => {
    load();
  }, []);
  const create = (e) => {
    e.preventDefault();
    const label = String(new FormData(e.target).get("label") || "").trim();
    setError(null);
    post("me/tokens", { label })
      .then((made) => {
        setFresh(made);
        /** @type {HTMLFormElement} */ (e.target).reset();
        load();
      })
      .catch(setError);
  };
  const revoke = (token) => {
    setError(null);
    del(`me/tokens/${token.id}`).then(load).catch(setError);
  };
  return html`<section aria-labelledby="tokens-h">
    <h2 id="tokens-h">${t("account.tokens.heading")}</h2>
    <p class="muted">${withParts(t("account.tokens.explain"), { link: html`<a href="/api/v1/redoc">/api/v1/redoc</a>` })}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      fresh &&
      html`<p class="notice" data-new-token>${withParts(
        fresh.label ? t("account.tokens.new_labelled", { label: fresh.label }) : t("account.tokens.new"),
        { key: html`<code>${fresh.key}</code>` },
      )}</p>`
    }
    ${
      tokens &&
      html`<table class="tokens"><thead><tr><th>${t("account.tokens.label")}</th><th>${t("account.tokens.created")}</th>
        <th>${t("account.tokens.last_used")}</th><th><span class="sr-only">${t("account.tokens.revoke")}</span></th></tr></thead>
      <tbody>${tokens.map(
        (token) => html`<tr key=${token.id} data-token=${token.id}>
        <td>${tokenLabel(token.label)}</td>
        <td>${when(token.created_at)}</td><td>${token.last_used_at ? when(token.last_used_at) : t("account.tokens.never")}</td>
        <td><button type="button" class="link" onClick=${() => revoke(token)}>${t("account.tokens.revoke")}</button></td></tr>`,
      )}</tbody></table>`
    }
    <form onSubmit=${create} aria-label=${t("account.tokens.new_form")}>
      <label>${t("account.tokens.label")} <input name="label" maxlength="100" placeholder=${t("account.tokens.placeholder")} /></label>
      <button type="submit">${t("account.tokens.create")}</button>
    </form>
  </section>`;
}

function BlocksPanel() {
  const [blocks, setBlocks] = useState(null);
  const [error, setError] = useState(null);
  const load = () => get("me/blocks").then(setBlocks).catch(setError);
  useEffect(() => {
    load();
  }, []);
  return html`<section aria-labelledby="blocks-h">
    <h2 id="blocks-h">${t("account.blocks.heading")}</h2>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      blocks &&
      (blocks.length
        ? html`<ul class="blocks">${blocks.map(
            (
              b,
            ) => html`<li key=${b.username} data-blocked=${b.username}><${Link} href=${`/users/${b.username}`}>${b.username}<//>${" "}<span class="muted">${t("account.blocks.scope", { scope: scopeName(b.scope) })}</span>
            <button type="button" class="link" onClick=${() => del(`me/blocks/${b.username}`).then(load).catch(setError)}>${t("account.blocks.unblock")}</button></li>`,
          )}</ul>`
        : html`<p class="muted">${t("account.blocks.none")}</p>`)
    }
  </section>`;
}

function DeletePanel({ me }) {
  const [typed, setTyped] = useState("");
  const [error, setError] = useState(null);
  const submit = (e) => {
    e.preventDefault();
    del("me")
      .then(() => {
        session.clear();
        window.dispatchEvent(new Event("tabula:signed-out"));
        navigate("/", { replace: true });
      })
      .catch(setError);
  };
  return html`<section aria-labelledby="delete-h" class="danger-zone">
    <h2 id="delete-h">${t("account.delete.heading")}</h2>
    <p>${t("account.delete.explain")}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label=${t("account.delete.heading")}>
      <label>${t("account.delete.confirm")} <input name="confirm" autocomplete="off" value=${typed} onInput=${(e) => setTyped(e.target.value)} /></label>
      <button type="submit" class="danger" disabled=${typed !== me.username}>${t("account.delete.heading")}</button>
    </form>
  </section>`;
}

/** The account panels, below the notice settings. `onSaved` gets the new `me` after a change. */
export function AccountPanels({ me, onSaved }) {
  return html`<${EmailPanel} me=${me} onSaved=${onSaved} />
    <section aria-labelledby="away-h">
      <h2 id="away-h">${t("account.away.heading")}</h2>
      <p>${withParts(t("account.away.explain"), { link: html`<${Link} href="/away">${t("account.away.link")}<//>` })}</p>
    </section>
    <${PasswordPanel} />
    <${TokensPanel} />
    <${BlocksPanel} />
    <${DeletePanel} me=${me} />`;
}
