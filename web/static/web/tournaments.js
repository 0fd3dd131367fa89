// Tournaments (issue 29): the list with a create form, and a page per tournament with its standings,
// its rounds (tables, seats, match links) and your next match. Join and withdraw from either.
import { get, post, results } from "./api.js";
import { formatList, formatNumber, t } from "./i18n.js";
import { ErrorNote, GAME_NAMES, Link, gameName, html, navigate, useEffect, useState, when, withParts } from "./ui.js";

// Codes the API knows; their words are the catalogue's.
const FORMATS = ["round_robin", "swiss", "elimination"];
const STATUSES = ["open", "running", "finished", "cancelled"];
const formatName = (f) => (FORMATS.includes(f) ? t(`account.tournament.format.${f}`) : f);
const statusName = (s) => (STATUSES.includes(s) ? t(`account.tournament.status.${s}`) : s);
const named = (g) => (g.id in GAME_NAMES ? gameName(g.id) : g.name);
const points = (n) => formatNumber(n, { maximumFractionDigits: 2 });

/** "Swiss, tables of 2 · 3/8 players": a tournament's shape, in the list and on its page. */
const shape = (tour) => [
  t("account.tournament.tables", { format: formatName(tour.format), count: tour.table_size }),
  t("account.tournament.players", { players: tour.players, count: tour.max_players }),
];

function JoinButton({ tour, me, onDone, onError }) {
  const [busy, setBusy] = useState(false);
  if (!me) return null;
  const act = (what) => {
    setBusy(true);
    post(`tournaments/${tour.id}/${what}`)
      .then(onDone)
      .catch(onError)
      .finally(() => setBusy(false));
  };
  if (tour.entered && (tour.status === "open" || tour.status === "running")) {
    return html`<button type="button" data-withdraw disabled=${busy} onClick=${() => act("withdraw")}>${t("account.tournament.withdraw")}</button>`;
  }
  if (tour.status === "open" && !tour.entered && tour.players < tour.max_players) {
    return html`<button type="button" data-join disabled=${busy} onClick=${() => act("join")}>${t("account.tournament.join")}</button>`;
  }
  return null;
}

function Row({ tour, me, reload, setError }) {
  const parts = [gameName(tour.game), ...shape(tour), statusName(tour.status)];
  if (tour.private) parts.push(t("account.tournament.private"));
  return html`<li data-tournament=${tour.id}>
    <${Link} href=${`/tournaments/${tour.id}`}>${tour.name}<//> · ${parts.join(" · ")}
    ${" "}<${JoinButton} tour=${tour} me=${me} onDone=${reload} onError=${setError} />
  </li>`;
}

function CreateTournament({ games, onCreated }) {
  const [game, setGame] = useState(games[0]?.id);
  const spec = games.find((g) => g.id === game);
  const [format, setFormat] = useState("swiss");
  const [size, setSize] = useState(2);
  const [max, setMax] = useState(8);
  const [rounds, setRounds] = useState(3);
  const [hours, setHours] = useState(72);
  const [entry, setEntry] = useState("open");
  const [invite, setInvite] = useState("");
  const [name, setName] = useState("");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  if (!spec) return null;
  const tableSize = format === "elimination" ? 2 : Math.min(Math.max(size, spec.min_players), spec.max_players);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      name,
      game,
      format,
      table_size: tableSize,
      max_players: max,
      time_control: { per_move_s: Math.round(hours * 3600) },
      entry,
    };
    if (format === "swiss") body.rounds = rounds;
    if (entry === "invite") body.invite = invite.split(/[\s,]+/).filter(Boolean);
    try {
      const made = await post("tournaments", body);
      onCreated?.(made);
      navigate(`/tournaments/${made.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="create stack" onSubmit=${submit} aria-labelledby="new-t-h">
    <h2 id="new-t-h">${t("account.create.heading")}</h2>
    <div><label for="t-name">${t("account.create.name")}</label>
      <input id="t-name" name="name" required maxlength="100" value=${name} onInput=${(e) => setName(e.target.value)} /></div>
    <div><label for="t-game">${t("account.create.game")}</label>
      <select id="t-game" value=${game} onChange=${(e) => setGame(e.target.value)}>
        ${games.map((g) => html`<option value=${g.id}>${named(g)}</option>`)}
      </select></div>
    <div><label for="t-format">${t("account.create.format")}</label>
      <select id="t-format" value=${format} onChange=${(e) => setFormat(e.target.value)}>
        ${FORMATS.map((f) => html`<option value=${f}>${formatName(f)}</option>`)}
      </select></div>
    <div><label for="t-size">${t("account.create.table_size")}</label>
      <input id="t-size" type="number" min=${spec.min_players} max=${format === "elimination" ? 2 : spec.max_players}
        value=${tableSize} disabled=${format === "elimination"} onInput=${(e) => setSize(Number(e.target.value))} /></div>
    <div><label for="t-max">${t("account.create.max_players")}</label>
      <input id="t-max" type="number" min=${tableSize} max="256" value=${max} onInput=${(e) => setMax(Number(e.target.value))} />
      <small class="muted">${t("account.create.max_players_hint")}</small></div>
    ${
      format === "swiss" &&
      html`<div><label for="t-rounds">${t("account.create.rounds")}</label>
      <input id="t-rounds" type="number" min="1" max="50" value=${rounds} onInput=${(e) => setRounds(Number(e.target.value))} /></div>`
    }
    <div><label for="t-hours">${t("account.create.hours")}</label>
      <input id="t-hours" type="number" min="1" max="720" value=${hours} onInput=${(e) => setHours(Number(e.target.value))} />
      <small class="muted">${t("account.create.hours_hint")}</small></div>
    <div><label for="t-entry">${t("account.create.entry")}</label>
      <select id="t-entry" value=${entry} onChange=${(e) => setEntry(e.target.value)}>
        <option value="open">${t("account.create.entry_open")}</option><option value="invite">${t("account.create.entry_invite")}</option>
      </select></div>
    ${
      entry === "invite" &&
      html`<div><label for="t-invite">${t("account.create.invite")}</label>
      <input id="t-invite" value=${invite} onInput=${(e) => setInvite(e.target.value)} /></div>`
    }
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <button type="submit" disabled=${busy}>${t("account.create.submit")}</button>
  </form>`;
}

export function TournamentsPage({ me }) {
  const [status, setStatus] = useState("");
  const [list, setList] = useState(null);
  const [mine, setMine] = useState([]);
  const [games, setGames] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => {
    get(`tournaments${status ? `?status=${status}` : ""}`)
      .then((p) => setList(results(p)))
      .catch(setError);
    if (me) get("me/tournaments").then(setMine).catch(setError);
  };
  useEffect(reload, [status, me]);
  useEffect(() => {
    get("games").then(setGames).catch(setError);
  }, []);
  return html`<main class="tournaments">
    <h1>${t("account.tournaments.title")}</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      me &&
      mine.length > 0 &&
      html`<section aria-labelledby="mine-h"><h2 id="mine-h">${t("account.tournaments.yours")}</h2>
      <ul>${mine.map(
        (
          tour,
        ) => html`<li key=${tour.id}><${Link} href=${`/tournaments/${tour.id}`}>${tour.name}<//> · ${statusName(tour.status)}
        ${tour.next_match && html` · <${Link} href=${`/matches/${tour.next_match}`} data-next-match>${t("account.tournaments.your_match_lower")}<//>`}</li>`,
      )}</ul>
    </section>`
    }
    <section aria-labelledby="all-h"><h2 id="all-h">${t("account.tournaments.all")}</h2>
      <label for="t-status">${t("account.tournaments.show")}</label>
      <select id="t-status" value=${status} onChange=${(e) => setStatus(e.target.value)}>
        <option value="">${t("account.tournaments.show_all")}</option>${STATUSES.map((s) => html`<option value=${s}>${statusName(s)}</option>`)}
      </select>
      ${
        list === null
          ? html`<p>${t("account.common.loading")}</p>`
          : list.length === 0
            ? html`<p class="muted">${t("account.tournaments.none")}</p>`
            : html`<ul class="matches">${list.map((tour) => html`<${Row} key=${tour.id} tour=${tour} me=${me} reload=${reload} setError=${setError} />`)}</ul>`
      }
    </section>
    ${
      me && games
        ? html`<${CreateTournament} games=${games} />`
        : !me &&
          html`<p>${withParts(t("account.tournaments.sign_in"), {
            link: html`<${Link} href="/signin?next=/tournaments">${t("account.tournaments.sign_in_link")}<//>`,
          })}</p>`
    }
  </main>`;
}

function Standings({ rows, size }) {
  if (!rows.length) return html`<p class="muted">${t("account.standings.empty")}</p>`;
  return html`<table class="standings" data-standings>
    <thead><tr><th>${t("account.standings.rank")}</th><th>${t("account.standings.player")}</th><th>${t("account.standings.points")}</th>
      <th title=${t("account.standings.buchholz")}>${t("account.standings.buchholz")}</th>
      <th title=${t("account.standings.sonneborn_berger")}>${t("account.standings.sb")}</th><th>${t("account.standings.played")}</th>
      <th>${t("account.standings.seats", { size })}</th></tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr key=${r.username} data-standing=${r.username}>
      <td>${formatNumber(r.rank)}</td><td><${Link} href=${`/users/${r.username}`}>${r.username}<//>${
        r.withdrawn ? html` <span class="muted">${t("account.standings.withdrawn")}</span>` : ""
      }</td>
      <td data-points>${points(r.points)}</td><td>${points(r.buchholz)}</td><td>${points(r.sonneborn_berger)}</td>
      <td>${formatNumber(r.played)}</td><td>${r.seats.map((s) => formatNumber(s)).join(" / ")}</td></tr>`,
    )}</tbody>
  </table>`;
}

function RoundView({ id, number }) {
  const [r, setR] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get(`tournaments/${id}/rounds/${number}`).then(setR).catch(setError);
  }, [id, number]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!r) return html`<p>${t("account.round.loading", { number })}</p>`;
  const timing = [
    t("account.round.paired", { date: when(r.paired_at) }),
    t("account.round.deadline", { date: when(r.deadline) }),
  ];
  if (r.finished_at) timing.push(t("account.round.finished"));
  return html`<section data-round=${number} aria-label=${t("account.round.heading", { number })}>
    <h3>${t("account.round.heading", { number })}</h3>
    <p class="muted">${timing.join(" · ")}</p>
    <ol>${r.tables.map(
      (tb) => html`<li key=${tb.index} data-table=${tb.index}>
      ${tb.seats.map(
        (name, i) =>
          html`${i ? ", " : ""}${tb.points ? t("account.round.seat_points", { name, points: points(tb.points[i]) }) : name}`,
      )}${" · "}<${Link} href=${`/matches/${tb.match}`}>${tb.status === "active" ? t("account.round.watch") : t("account.round.see")}<//>
      ${tb.adjudicated ? ` · ${t("account.round.adjudicated")}` : ""}</li>`,
    )}</ol>
    ${
      r.byes.length > 0 &&
      html`<p>${t("account.round.byes", {
        count: r.byes.length,
        list: formatList(
          r.byes.map((b) => t("account.round.seat_points", { name: b.username, points: points(b.points) })),
        ),
      })}</p>`
    }
  </section>`;
}

export function TournamentPage({ id, me }) {
  const [tour, setTour] = useState(null);
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => {
    get(`tournaments/${id}`).then(setTour).catch(setError);
    get(`tournaments/${id}/standings`).then(setRows).catch(setError);
  };
  useEffect(load, [id]);
  if (!tour)
    return html`<main>${error ? html`<${ErrorNote} error=${error} />` : html`<p>${t("account.common.loading")}</p>`}</main>`;
  const rounds = Array.from({ length: tour.round }, (_, i) => tour.round - i);
  const after = [];
  if (tour.round)
    after.push(
      tour.format === "swiss"
        ? t("account.tournament.round_of", { round: tour.round, rounds: tour.rounds })
        : t("account.tournament.round", { round: tour.round }),
    );
  if (tour.round_deadline && tour.status === "running")
    after.push(t("account.tournament.round_deadline", { date: when(tour.round_deadline) }));
  return html`<main class="tournament" data-tournament-status=${tour.status}>
    <h1>${tour.name}</h1>
    <p>${[gameName(tour.game), ...shape(tour)].join(" · ")} · <strong>${statusName(tour.status)}</strong>${after.map((a) => ` · ${a}`)}</p>
    <p class="muted">${t("account.tournament.scoring", { points: tour.points.map(points).join(" / ") })}${" "}
      ${tour.time_control.on_timeout === "forfeit" ? t("account.tournament.timeout_forfeit") : t("account.tournament.timeout_default")}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <p class="actions"><${JoinButton} tour=${tour} me=${me} onDone=${load} onError=${setError} />
      ${tour.next_match && html` <${Link} href=${`/matches/${tour.next_match}`} data-next-match>${t("account.tournament.your_match")}<//>`}</p>
    <section aria-labelledby="standings-h"><h2 id="standings-h">${t("account.standings.heading")}</h2>
      <${Standings} rows=${rows} size=${tour.table_size} /></section>
    ${
      rounds.length > 0 &&
      html`<section aria-labelledby="rounds-h"><h2 id="rounds-h">${t("account.round.rounds")}</h2>
      ${rounds.map((n) => html`<${RoundView} key=${n} id=${id} number=${n} />`)}</section>`
    }
    ${
      tour.status === "open" &&
      html`<section aria-labelledby="entrants-h"><h2 id="entrants-h">${t("account.tournament.entrants")}</h2>
      <ul>${tour.entrants.map((e) => html`<li key=${e.username}>${e.username}</li>`)}</ul></section>`
    }
  </main>`;
}
