// The account part of the settings page (issue 32): e-mail address, password, API tokens, the
// people one blocks, going away, and deleting the account. Each panel saves on its own.
import { del, get, patch, post, session } from "./api.js";
import { ErrorNote, Link, html, navigate, useEffect, useState, when } from "./ui.js";

/** @typedef {import("./types.js").Me} Me */

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
    <h2 id="email-h">E-mail address</h2>
    <p class="muted">For the e-mail digest only; nobody else sees it. Leave it empty to have none.</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label="E-mail address">
      <label>E-mail <input type="email" name="email" autocomplete="email" defaultValue=${me.email || ""} /></label>
      <button type="submit">Save e-mail</button>
      ${done && html` <span role="status" data-email-saved>Saved.</span>`}
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
    <h2 id="password-h">Password</h2>
    <p class="muted">Changing it signs out every other browser and revokes every other token.</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label="Change password">
      <label>Current password <input type="password" name="current" autocomplete="current-password" required /></label>
      <label>New password <input type="password" name="new" autocomplete="new-password" minlength="8" required /></label>
      <button type="submit">Change password</button>
      ${done && html` <span role="status" data-password-changed>Password changed.</span>`}
    </form>
  </section>`;
}

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
      .then((t) => {
        setFresh(t);
        /** @type {HTMLFormElement} */ (e.target).reset();
        load();
      })
      .catch(setError);
  };
  const revoke = (t) => {
    setError(null);
    del(`me/tokens/${t.id}`).then(load).catch(setError);
  };
  return html`<section aria-labelledby="tokens-h">
    <h2 id="tokens-h">API tokens</h2>
    <p class="muted">For your own scripts and for other clients (the API is described at <a href="/api/v1/redoc">/api/v1/redoc</a>). Signing in here made one too.</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      fresh &&
      html`<p class="notice" data-new-token>New token${fresh.label ? ` “${fresh.label}”` : ""}: <code>${fresh.key}</code>. Copy it now: it is not shown again.</p>`
    }
    ${
      tokens &&
      html`<table class="tokens"><thead><tr><th>Label</th><th>Created</th><th>Last used</th><th><span class="sr-only">Revoke</span></th></tr></thead>
      <tbody>${tokens.map(
        (
          t,
        ) => html`<tr key=${t.id} data-token=${t.id}><td>${t.label || html`<span class="muted">(no label)</span>`}</td>
        <td>${new Date(t.created_at).toLocaleString()}</td><td>${t.last_used_at ? when(t.last_used_at) : "never"}</td>
        <td><button type="button" class="link" onClick=${() => revoke(t)}>Revoke</button></td></tr>`,
      )}</tbody></table>`
    }
    <form onSubmit=${create} aria-label="New token">
      <label>Label <input name="label" maxlength="100" placeholder="my script" /></label>
      <button type="submit">Create a token</button>
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
  const SCOPES = { all: "everything", games: "games", messages: "messages" };
  return html`<section aria-labelledby="blocks-h">
    <h2 id="blocks-h">Blocked players</h2>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      blocks &&
      (blocks.length
        ? html`<ul class="blocks">${blocks.map(
            (
              b,
            ) => html`<li key=${b.username} data-blocked=${b.username}><${Link} href=${`/users/${b.username}`}>${b.username}<//>
            <span class="muted">(${SCOPES[b.scope] || b.scope})</span>
            <button type="button" class="link" onClick=${() => del(`me/blocks/${b.username}`).then(load).catch(setError)}>Unblock</button></li>`,
          )}</ul>`
        : html`<p class="muted">Nobody. Block a player from their profile.</p>`)
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
    <h2 id="delete-h">Delete my account</h2>
    <p>Your tokens, settings and ratings go at once; your live matches are resigned and open ones left.
      Finished matches keep their moves, shown as by “deleted player”.</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <form onSubmit=${submit} aria-label="Delete my account">
      <label>Type your username to confirm <input name="confirm" autocomplete="off" value=${typed} onInput=${(e) => setTyped(e.target.value)} /></label>
      <button type="submit" class="danger" disabled=${typed !== me.username}>Delete my account</button>
    </form>
  </section>`;
}

/** The account panels, below the notice settings. `onSaved` gets the new `me` after a change. */
export function AccountPanels({ me, onSaved }) {
  return html`<${EmailPanel} me=${me} onSaved=${onSaved} />
    <section aria-labelledby="away-h">
      <h2 id="away-h">Going away</h2>
      <p>Freeze your clocks while you are away, and choose who keeps your seats: <${Link} href="/away">Away settings<//>.</p>
    </section>
    <${PasswordPanel} />
    <${TokensPanel} />
    <${BlocksPanel} />
    <${DeletePanel} me=${me} />`;
}
