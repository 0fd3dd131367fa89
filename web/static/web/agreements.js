// Agreements (issue 26): the open proposals of a match with Accept/Decline, and buttons to propose
// a draw, a cancellation, a concession or more time. Undo is a button of the move panel (match.js).
import { del, get, post, put } from "./api.js";
import { formatDate, t } from "./i18n.js";
import { ErrorNote, html, useEffect, useState } from "./ui.js";

// A proposal in a sentence: `agree.proposal.<kind>`, with who proposes and what.
const PARAMS = {
  draw: () => ({}),
  cancel: () => ({}),
  concede_to: (p, names) => ({ seat: names(p.seat) }),
  extend: (p, names) => ({ count: Math.round(p.seconds / 3600), seat: names(p.seat) }),
  pause: (p) => ({ until: formatDate(p.until) }),
  takeback: (p) => ({ seq: p.to_seq }),
};
const proposal = (p, names) =>
  PARAMS[p.kind]
    ? t(`ui.agree.proposal.${p.kind}`, { name: names(p.by), ...PARAMS[p.kind](p, names) })
    : `${names(p.by)}: ${p.kind}`;

export function Agreements({ id, state, names, seats, takebackTo, onChange }) {
  const [list, setList] = useState([]);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    get(`matches/${id}/proposals`)
      .then(setList)
      .catch(() => {});
  useEffect(() => {
    load();
    const timer = setInterval(load, 10000); // proposals make no record until they pass: look now and then
    return () => clearInterval(timer);
  }, [id, state.version]);
  const act = (promise) => {
    setBusy(true);
    setError(null);
    return promise
      .then(() => {
        load();
        onChange();
      })
      .catch(setError)
      .finally(() => setBusy(false));
  };
  const propose = (body) => act(post(`matches/${id}/proposals`, body));
  const vote = (p, accept) => act(put(`matches/${id}/proposals/${p.id}/vote`, { accept }));
  const withdraw = (p) => act(del(`matches/${id}/proposals/${p.id}`));
  const me = state.you;
  const others = seats.filter((s) => s.index !== me && !s.resigned);
  return html`<section class="agreements" aria-labelledby="agree-h">
    <h2 id="agree-h">${t("ui.agree.title")}</h2>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      list.length === 0
        ? html`<p class="muted">${t("ui.agree.none")}</p>`
        : html`<ul>
      ${list.map(
        (p) => html`<li key=${p.id} data-proposal=${p.kind}>
        ${proposal(p, names)}
        ${
          p.needed.includes(me) &&
          p.votes[String(me)] === undefined &&
          html`
          <button type="button" onClick=${() => vote(p, true)} disabled=${busy}>${t("ui.agree.accept")}</button>
          <button type="button" onClick=${() => vote(p, false)} disabled=${busy}>${t("ui.agree.decline")}</button>`
        }
        ${p.by === me && html`<button type="button" class="link" onClick=${() => withdraw(p)} disabled=${busy}>${t("ui.agree.withdraw")}</button>`}
      </li>`,
      )}
    </ul>`
    }
    <p class="propose">
      <button type="button" onClick=${() => propose({ kind: "draw" })} disabled=${busy}>${t("ui.agree.offer_draw")}</button>
      <button type="button" onClick=${() => propose({ kind: "cancel" })} disabled=${busy}>${t("ui.agree.offer_cancel")}</button>
      ${takebackTo !== null && takebackTo !== undefined && html`<button type="button" onClick=${() => propose({ kind: "takeback", to_seq: takebackTo })} disabled=${busy}>${t("ui.agree.offer_takeback")}</button>`}
      ${state.deadlines && Object.keys(state.deadlines.seats || {}).length > 0 && html`<button type="button" onClick=${() => propose({ kind: "pause", until: new Date(Date.now() + 86400000).toISOString() })} disabled=${busy}>${t("ui.agree.offer_pause")}</button>`}
      ${others.map((s) => html`<button type="button" key=${`c${s.index}`} onClick=${() => propose({ kind: "concede_to", seat: s.index })} disabled=${busy}>${t("ui.agree.offer_concede", { name: names(s.index) })}</button>`)}
      ${state.deadlines && Object.keys(state.deadlines.seats || {}).length > 0 && others.map((s) => html`<button type="button" key=${`e${s.index}`} onClick=${() => propose({ kind: "extend", seat: s.index, seconds: 86400 })} disabled=${busy}>${t("ui.agree.offer_extend", { name: names(s.index) })}</button>`)}
    </p>
  </section>`;
}
