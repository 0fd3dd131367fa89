// Players (issue 13 in the API, issue 14 in the browser): leaderboards, invitations, joining by invitation link.
import { get, post, results } from "./api.js";
import { formatNumber, t } from "./i18n.js";
import { ErrorNote, GAME_NAMES, Link, gameName, html, navigate, useEffect, useState, when, withParts } from "./ui.js";

// A game of the list in words: ours through the catalogue, another (a test's toy) by the API's name.
const named = (g) => (g.id in GAME_NAMES ? gameName(g.id) : g.name);
// A rating is a number people remember whole: 1523, never "1,523".
const rating = (n) => formatNumber(n, { useGrouping: false });
const MATCH_STATUSES = ["open", "active", "finished", "aborted"];
const INVITATION_STATUSES = ["pending", "accepted", "declined"];

export function Leaderboard({ game }) {
  const [games, setGames] = useState([]);
  const [rows, setRows] = useState(undefined);
  const [next, setNext] = useState(null);
  const [error, setError] = useState(null);
  const chosen = game || "ekko";
  const load = (cursor) =>
    get(`leaderboards/${chosen}?limit=50${cursor ? `&cursor=${cursor}` : ""}`)
      .then((b) => {
        setRows((old) => (cursor ? [...(old || []), ...b.results] : b.results));
        setNext(b.next);
      })
      .catch(setError);
  useEffect(() => {
    get("games")
      .then(setGames)
      .catch(() => setGames([]));
  }, []);
  useEffect(() => {
    setRows(undefined);
    setError(null);
    load(null);
  }, [chosen]);
  return html`<main>
    <h1>${t("account.leaderboard.title")}</h1>
    <nav aria-label=${t("account.leaderboard.games")} class="tabs">${games.map(
      (g) =>
        html`<${Link} href=${`/leaderboards/${g.id}`} aria-current=${g.id === chosen ? "page" : undefined}>${named(g)}<//>`,
    )}</nav>
    ${error ? html`<${ErrorNote} error=${error} />` : null}
    ${
      rows === undefined
        ? html`<p>${t("account.common.loading")}</p>`
        : !rows.length
          ? html`<p class="muted">${t("account.leaderboard.empty", { game: gameName(chosen) })}</p>`
          : html`<table data-board=${chosen}><thead><tr><th>${t("account.leaderboard.rank")}</th><th>${t("account.leaderboard.player")}</th>
          <th>${t("account.leaderboard.rating")}</th><th>${t("account.leaderboard.games_played")}</th></tr></thead><tbody>
          ${rows.map(
            (
              row,
            ) => html`<tr key=${row.rank}><td>${formatNumber(row.rank)}</td><td><${Link} href=${`/users/${row.username}`}>${row.username}<//></td>
            <td>${
              row.provisional
                ? html`<span title=${t("account.leaderboard.provisional")}>${rating(row.rating)}?</span>`
                : rating(row.rating)
            }</td><td>${formatNumber(row.games)}</td></tr>`,
          )}</tbody></table>`
    }
    ${next ? html`<button type="button" onClick=${() => load(next)}>${t("account.leaderboard.more")}</button>` : null}
  </main>`;
}

export function Invitations() {
  const [list, setList] = useState(undefined);
  const [error, setError] = useState(null);
  const load = () =>
    get("me/invitations")
      .then((l) => setList(results(l)))
      .catch(setError);
  useEffect(() => {
    load();
  }, []);
  const accept = (id) =>
    post(`matches/${id}/join`, {})
      .then(() => navigate(`/matches/${id}`))
      .catch(setError);
  const decline = (id) => post(`matches/${id}/decline`).then(load).catch(setError);
  return html`<main>
    <h1>${t("account.invitations.title")}</h1>
    ${error ? html`<${ErrorNote} error=${error} onDismiss=${() => setError(null)} />` : null}
    ${
      list === undefined
        ? html`<p>${t("account.common.loading")}</p>`
        : !list.length
          ? html`<p class="muted">${t("account.invitations.empty")}</p>`
          : html`<ul class="matches">${list.map((i) => {
              const about = {
                game: gameName(i.match.game),
                count: i.match.players,
                name: i.invited_by,
                date: when(i.created_at),
                seat: (i.seat ?? 0) + 1,
              };
              return html`<li key=${i.match.id} data-invitation=${i.match.id}>
          ${i.seat === null || i.seat === undefined ? t("account.invitations.item_any_seat", about) : t("account.invitations.item", about)}
          <button type="button" onClick=${() => accept(i.match.id)}>${t("account.invitations.accept")}</button>
          <button type="button" onClick=${() => decline(i.match.id)}>${t("account.invitations.decline")}</button></li>`;
            })}</ul>`
    }
  </main>`;
}

// An invitation link is /join#<code>: the code stays in the fragment, which browsers never send.
export function JoinByCode() {
  const code = decodeURIComponent(location.hash.slice(1));
  const [match, setMatch] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    post("invites", { code }).then(setMatch).catch(setError);
  }, [code]);
  const join = () =>
    post(`matches/${match.id}/join`, { code })
      .then(() => navigate(`/matches/${match.id}`))
      .catch(setError);
  return html`<main>
    <h1>${t("account.join.title")}</h1>
    ${error ? html`<${ErrorNote} error=${error} />` : null}
    ${
      match
        ? html`<p>${t("account.join.about", {
            game: gameName(match.game),
            name: match.created_by,
            status: MATCH_STATUSES.includes(match.status) ? t(`account.match_status.${match.status}`) : match.status,
          })}</p>
      <button type="button" onClick=${join}>${t("account.join.submit")}</button>`
        : error
          ? null
          : html`<p>${t("account.common.loading")}</p>`
    }
  </main>`;
}

const fixed = (n) =>
  n === null || n === undefined ? "–" : formatNumber(Number(n), { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function PlayerStats({ stats }) {
  const games = Object.entries(stats || {});
  if (!games.length) return null;
  return html`<section aria-labelledby="stats-h"><h2 id="stats-h">${t("account.stats.heading")}</h2>
    <table data-stats><thead><tr><th>${t("account.stats.game")}</th><th>${t("account.stats.played")}</th>
      <th>${t("account.stats.won")}</th><th>${t("account.stats.drawn")}</th><th>${t("account.stats.lost")}</th>
      <th>${t("account.stats.average_place")}</th><th>${t("account.stats.average_score")}</th>
      <th>${t("account.stats.longest_streak")}</th></tr></thead><tbody>
      ${games.map(
        ([game, s]) => html`<tr key=${game}><td>${gameName(game)}</td><td>${formatNumber(s.played)}</td>
        <td>${formatNumber(s.won)}</td><td>${formatNumber(s.drawn)}</td><td>${formatNumber(s.lost)}</td>
        <td>${fixed(s.average_placement)}</td><td>${fixed(s.average_score)}</td><td>${formatNumber(s.longest_streak)}</td></tr>`,
      )}
    </tbody></table></section>`;
}

const invitationStatus = (s) => (INVITATION_STATUSES.includes(s) ? t(`account.invite.status.${s}`) : s);

// On an open match's page, for its seated players: the invitation link and inviting by username.
export function InvitePanel({ id }) {
  const [info, setInfo] = useState(null);
  const [name, setName] = useState("");
  const [error, setError] = useState(null);
  const load = () => get(`matches/${id}/invitations`).then(setInfo).catch(setError);
  useEffect(() => {
    load();
  }, [id]);
  const invite = (e) => {
    e.preventDefault();
    post(`matches/${id}/invitations`, { username: name.trim() })
      .then(() => {
        setName("");
        load();
      })
      .catch(setError);
  };
  if (!info) return error ? html`<${ErrorNote} error=${error} />` : null;
  return html`<div class="invite">
    <p>${withParts(t("account.invite.link"), {
      link: html`<code class="invite-link">${location.origin}/join#${info.invite_code}</code>`,
    })}</p>
    ${
      info.invitations.length
        ? html`<ul>${info.invitations.map((i) => {
            const about = { name: i.username, status: invitationStatus(i.status), seat: (i.seat ?? 0) + 1 };
            return html`<li key=${i.username}>${i.seat !== null ? t("account.invite.entry_seat", about) : t("account.invite.entry", about)}</li>`;
          })}</ul>`
        : null
    }
    <form aria-label=${t("account.invite.form")} onSubmit=${invite}>
      <label for="invite-name">${t("account.invite.by_username")}</label>
      <input id="invite-name" value=${name} onInput=${(e) => setName(e.target.value)} autocomplete="off" required />
      <button type="submit">${t("account.invite.submit")}</button>
    </form>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
  </div>`;
}
