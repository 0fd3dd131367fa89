// Tabula's web client: one page, ES modules, Preact + htm (vendored, pinned: htm 3.1.1's standalone build).
import { get, optional, patch, post, results, session, settled } from "./api.js";
import {
  LANGUAGES,
  LANGUAGE_NAMES,
  formatList,
  formatNumber,
  gameHas,
  gameT,
  initI18n,
  lang,
  setLanguage,
  t,
} from "./i18n.js";
import { AwayPage } from "./away.js";
import { FeedPage, ProfileCircles } from "./circles.js";
import { ReplayPage } from "./replay.js";
import { RulesIndex, RulesPage } from "./rules.js";
import { TournamentPage, TournamentsPage } from "./tournaments.js";
import { SettingsPage } from "./settings.js";
import { watchMe } from "./live.js";
import { MatchPage } from "./match.js";
import { Invitations, JoinByCode, Leaderboard, PlayerStats } from "./players.js";
import {
  Countdown,
  ErrorNote,
  BOT_LEVELS,
  GAME_NAMES,
  Link,
  botLevel,
  gameName,
  html,
  mySeat,
  navigate,
  render,
  seatName,
  useEffect,
  usePath,
  useState,
  when,
  withParts,
} from "./ui.js";

// A person's account speaks a language (settings, sign-up); this browser follows it on sign-in
// unless it was told otherwise here: a choice made with the switch, or `?lang=` in the address.
async function followAccountLanguage() {
  if (!session.token || new URLSearchParams(location.search).has("lang")) return;
  let stored = null;
  try {
    stored = localStorage.getItem("tabula.lang");
  } catch (e) {
    stored = null;
  }
  if (stored) return;
  try {
    const me = await get("me");
    if (LANGUAGES.includes(me?.language) && me.language !== lang()) setLanguage(me.language);
  } catch (e) {
    /* the browser's language stays */
  }
}
window.addEventListener("tabula:signed-in", followAccountLanguage);

function useSession() {
  const [user, setUser] = useState(session.username);
  useEffect(() => {
    const out = () => setUser(null);
    const inn = () => setUser(session.username);
    window.addEventListener("tabula:signed-out", out);
    window.addEventListener("tabula:signed-in", inn);
    return () => {
      window.removeEventListener("tabula:signed-out", out);
      window.removeEventListener("tabula:signed-in", inn);
    };
  }, []);
  return user;
}

// --- my matches, shared by the nav badge and the My games page --------------------------------------

function waitingFor(m, me) {
  const seat = mySeat(m, me);
  return m.status === "active" && seat !== null && (m.awaiting || []).includes(seat);
}

async function loadMine(me) {
  const withTurns = async () => (session.token ? optional("me/turns") : null);
  const [mine, turns] = await Promise.all([get("matches?mine=true&limit=100"), withTurns()]);
  const all = results(mine);
  let waiting;
  if (turns) {
    const ids = new Set(results(turns).map((t) => t.id || t.match || t.match_id));
    waiting = all.filter((m) => ids.has(m.id));
  } else {
    waiting = all.filter((m) => waitingFor(m, me));
  }
  const ids = new Set(waiting.map((m) => m.id));
  return { waiting, others: all.filter((m) => !ids.has(m.id)) };
}

function useMine(me) {
  const [mine, setMine] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (!me) {
      setMine(null);
      return undefined;
    }
    let alive = true;
    const load = () =>
      session.token &&
      loadMine(me)
        .then((v) => {
          if (alive) {
            setMine(v);
            setError(null);
          }
        })
        .catch((e) => alive && setError(e));
    load();
    const stop = watchMe(load);
    window.addEventListener("tabula:moved", load); // my own move changes what waits for me: no inbox entry says so
    return () => {
      alive = false;
      stop();
      window.removeEventListener("tabula:moved", load);
    };
  }, [me]);
  return [mine, error];
}

// --- shell ---------------------------------------------------------------------------------------------

function Nav({ me, waiting }) {
  const signOut = async () => {
    // Drop the token first, so the live streams and lists stop before the server revokes it (a
    // request with a revoked token would answer 401), then revoke it with the copy kept here.
    const token = session.token;
    session.clear();
    window.dispatchEvent(new Event("tabula:signed-out"));
    navigate("/signin");
    if (!token) return;
    await settled(); // requests sent with the token finish before it stops working
    try {
      await post("auth/logout", {}, { headers: { Authorization: `Token ${token}` } });
    } catch (e) {
      /* dropped either way */
    }
  };
  return html`<header class="top">
    <nav aria-label=${t("ui.nav.label")}>
      <${Link} href="/" class="brand">${t("ui.nav.brand")}<//>
      <${Link} href="/lobby">${t("ui.nav.lobby")}<//>
      ${me && html`<${Link} href="/">${t("ui.nav.my_games")}${waiting ? html` <span class="badge" aria-label=${t("ui.nav.waiting", { count: waiting })}>${formatNumber(waiting)}</span>` : ""}<//>`}
      <${Link} href="/leaderboards">${t("ui.nav.leaderboards")}<//>
      <${Link} href="/tournaments">${t("ui.nav.tournaments")}<//>
      <${Link} href="/rules">${t("ui.nav.rules")}<//>
      ${me && html`<${Link} href="/invitations">${t("ui.nav.invitations")}<//>`}
      ${me && html`<${Link} href="/away">${t("ui.nav.away")}<//>`}
      ${me && html`<${Link} href="/feed">${t("ui.nav.feed")}<//>`}
      ${me && html`<${Link} href="/settings">${t("ui.nav.settings")}<//>`}
      <span class="spacer"></span>
      ${
        me
          ? html`<${Link} href=${`/users/${me}`}>${me}<//> <button type="button" class="link" onClick=${signOut}>${t("ui.nav.sign_out")}</button>`
          : html`<${Link} href="/signin">${t("ui.nav.sign_in")}<//> <${Link} href="/signup">${t("ui.nav.sign_up")}<//>`
      }
      <${LanguageSwitch} me=${me} />
    </nav>
  </header>`;
}

// The language switch, on every page. A signed-in person's choice is also their account's (the
// mails, pushes and problem documents follow it); a failed PATCH still switches this browser.
function LanguageSwitch({ me }) {
  const choose = async (e) => {
    const code = e.target.value;
    if (me && session.token) {
      try {
        await patch("me", { language: code });
      } catch (err) {
        /* this browser switches anyway */
      }
    }
    setLanguage(code);
  };
  return html`<select class="language" aria-label=${t("ui.nav.language")} value=${lang()} onChange=${choose} data-language>
    ${LANGUAGES.map((code) => html`<option value=${code} lang=${code} key=${code}>${LANGUAGE_NAMES[code]}</option>`)}
  </select>`;
}

function AuthForm({ mode }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const signup = mode === "signup";
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const username = String(form.get("username") || "").trim();
    const password = form.get("password");
    setBusy(true);
    setError(null);
    try {
      const body = { username, password };
      const email = signup ? String(form.get("email") || "").trim() : "";
      if (email) body.email = email; // optional: the e-mail digest needs one
      if (signup) body.language = lang(); // the account speaks the language this page was shown in
      const answer = signup ? await post("auth/register", body) : await post("auth/token", body);
      session.save(answer.token, answer.username || username);
      window.dispatchEvent(new Event("tabula:signed-in"));
      const next = new URLSearchParams(location.search).get("next");
      navigate(next && next.startsWith("/") ? next : "/", { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = signup ? t("ui.nav.sign_up") : t("ui.nav.sign_in");
  return html`<main class="narrow">
    <h1>${title}</h1>
    <form onSubmit=${submit} class="stack">
      <label for="username">${t("ui.auth.username")}</label>
      <input id="username" name="username" autocomplete="username" required autofocus />
      <label for="password">${t("ui.auth.password")}</label>
      <input id="password" name="password" type="password" autocomplete=${signup ? "new-password" : "current-password"} required />
      ${
        signup &&
        html`<label for="email">${t("ui.auth.email")} <span class="muted">${t("ui.auth.email_hint")}</span></label>
        <input id="email" name="email" type="email" autocomplete="email" />`
      }
      <${ErrorNote} error=${error} />
      <button type="submit" disabled=${busy}>${title}</button>
    </form>
    <p>${
      signup
        ? html`${t("ui.auth.have_account")} <${Link} href="/signin">${t("ui.nav.sign_in")}<//>`
        : html`${t("ui.auth.new_here")} <${Link} href="/signup">${t("ui.nav.sign_up")}<//>`
    }</p>
  </main>`;
}

// --- my games ------------------------------------------------------------------------------------------

const STATUSES = ["open", "active", "finished", "aborted"];

function MatchRow({ m, me, action }) {
  const seat = mySeat(m, me);
  const deadline = seat !== null ? m.deadlines?.seats?.[String(seat)]?.deadline : null;
  const players = m.seats
    .map((s) => (s.away_until ? t("ui.row.away", { name: seatName(m, s.index) }) : seatName(m, s.index)))
    .join(", ");
  let status = STATUSES.includes(m.status) ? t(`ui.status.${m.status}`) : m.status;
  if (m.status === "active") {
    const awaited = (m.awaiting || []).map((i) => seatName(m, i));
    status = waitingFor(m, me)
      ? t("ui.row.your_turn")
      : awaited.length
        ? t("ui.row.waiting_for", { names: formatList(awaited) })
        : t("ui.row.waiting_for_server");
  }
  if (m.status === "open") status = t("ui.row.open", { count: m.seats.filter((s) => !s.username && !s.bot).length });
  return html`<li class="match-row">
    <${Link} href=${`/matches/${m.id}`}><strong>${gameName(m.game)}</strong> · ${players}<//>
    <span class="muted">${status}</span>
    ${deadline && html`<${Countdown} deadline=${deadline} />`}
    ${action}
  </li>`;
}

function MyGames({ me, mine, error }) {
  if (!me)
    return html`<main><h1>${t("ui.nav.brand")}</h1><p>${t("ui.home.tagline", { games: formatList(Object.keys(GAME_NAMES).map(gameName)) })}</p>
    <p>${withParts(t("ui.home.invite"), {
      sign_up: html`<${Link} href="/signup">${t("ui.home.invite_sign_up")}<//>`,
      sign_in: html`<${Link} href="/signin">${t("ui.home.invite_sign_in")}<//>`,
      lobby: html`<${Link} href="/lobby">${t("ui.home.invite_lobby")}<//>`,
    })}</p></main>`;
  return html`<main>
    <h1>${t("ui.nav.my_games")}</h1>
    <${ErrorNote} error=${error} />
    ${
      !mine
        ? html`<p>${t("ui.common.loading")}</p>`
        : html`
      <section aria-labelledby="waiting-h"><h2 id="waiting-h">${t("ui.home.waiting", { count: mine.waiting.length })}</h2>
        ${mine.waiting.length ? html`<ul class="matches">${mine.waiting.map((m) => html`<${MatchRow} key=${m.id} m=${m} me=${me} />`)}</ul>` : html`<p class="muted">${t("ui.home.nothing_waits")}</p>`}
      </section>
      <section aria-labelledby="others-h"><h2 id="others-h">${t("ui.home.others")}</h2>
        ${mine.others.length ? html`<ul class="matches">${mine.others.map((m) => html`<${MatchRow} key=${m.id} m=${m} me=${me} />`)}</ul>` : html`<p class="muted">${withParts(t("ui.home.none_yet"), { link: html`<${Link} href="/lobby">${t("ui.home.start_one")}<//>` })}</p>`}
      </section>`
    }
  </main>`;
}

// --- lobby ---------------------------------------------------------------------------------------------

// An option's words come from its game's catalogue (`option.<name>`, `option.<name>.help`,
// `option.<name>.<choice>`); the server's English description stands in where it has none.
function optionWords(game, option) {
  const words = gameT(game);
  const has = (key) => gameHas(game, key);
  const name = option.name;
  return {
    label: has(`option.${name}`) ? words(`option.${name}`) : name.replaceAll("_", " "),
    hint: has(`option.${name}.help`) ? words(`option.${name}.help`) : option.description,
    choice: (c) => (has(`option.${name}.${c}`) ? words(`option.${name}.${c}`) : String(c)),
  };
}

function OptionInput({ game, option, value, onChange }) {
  const id = `opt-${option.name}`;
  const { label, hint, choice } = optionWords(game, option);
  if (option.type === "boolean") {
    return html`<div class="check"><input type="checkbox" id=${id} checked=${value ?? option.default} onChange=${(e) => onChange(e.target.checked)} />
      <label for=${id}>${label}</label> <small class="muted">${hint}</small></div>`;
  }
  if (option.choices) {
    return html`<div><label for=${id}>${label}</label>
      <select id=${id} value=${value ?? option.default} onChange=${(e) => onChange(e.target.value)}>
        ${option.choices.map((c) => html`<option value=${c}>${choice(c)}</option>`)}
      </select> <small class="muted">${hint}</small></div>`;
  }
  if (option.type === "integer") {
    return html`<div><label for=${id}>${label}</label>
      <input id=${id} type="number" min=${option.minimum} max=${option.maximum} value=${value ?? option.default ?? ""}
        placeholder=${option.default === null ? t("ui.create.no_limit") : ""} onInput=${(e) => onChange(e.target.value === "" ? null : Number(e.target.value))} />
      <small class="muted">${hint}</small></div>`;
  }
  if (option.type === "seat_or_random") {
    return html`<div><label for=${id}>${label}</label>
      <input id=${id} value=${value ?? option.default} onInput=${(e) => onChange(/^\d+$/.test(e.target.value) ? Number(e.target.value) : e.target.value)} />
      <small class="muted">${hint} ${t("ui.create.seat_or_random")}</small></div>`;
  }
  return null; // object options (fixtures, lists) are for API clients
}

function CreateMatch({ games, me }) {
  const [game, setGame] = useState(games[0]?.id);
  const spec = games.find((g) => g.id === game);
  const [players, setPlayers] = useState(2);
  const [options, setOptions] = useState({});
  const [bots, setBots] = useState({ 1: "random" });
  const [clock, setClock] = useState("none");
  const [tc, setTc] = useState({ per_move_s: 86400, bank_s: 259200, increment_s: 43200, on_timeout: "default_move" });
  const [isPrivate, setPrivate] = useState(false);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  if (!spec) return null;
  const n = Math.min(Math.max(players, spec.min_players), spec.max_players);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const chosen = {};
    for (const o of spec.options)
      if (options[`${game}.${o.name}`] !== undefined) chosen[o.name] = options[`${game}.${o.name}`];
    const body = {
      game,
      players: n,
      options: chosen,
      private: isPrivate,
      bots: Object.entries(bots)
        .filter(([s, l]) => Number(s) < n && l)
        .map(([s, l]) => ({ seat: Number(s), level: l })),
    };
    if (clock === "per_move") body.time_control = { per_move_s: tc.per_move_s, on_timeout: tc.on_timeout };
    if (clock === "bank")
      body.time_control = { bank_s: tc.bank_s, increment_s: tc.increment_s, on_timeout: tc.on_timeout };
    try {
      const m = await post("matches", body);
      navigate(`/matches/${m.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  if (!me)
    return html`<p>${withParts(t("ui.create.sign_in_first"), { link: html`<${Link} href="/signin?next=/lobby">${t("ui.nav.sign_in")}<//>` })}</p>`;
  return html`<form class="create stack" onSubmit=${submit} aria-labelledby="create-h">
    <h2 id="create-h">${t("ui.create.title")}</h2>
    <div><label for="new-game">${t("ui.create.game")}</label>
      <select id="new-game" value=${game} onChange=${(e) => setGame(e.target.value)}>
        ${games.map((g) => html`<option value=${g.id}>${gameName(g.id)}</option>`)}
      </select></div>
    <div><label for="new-players">${t("ui.create.players")}</label>
      <input id="new-players" type="number" min=${spec.min_players} max=${spec.max_players} value=${n} onInput=${(e) => setPlayers(Number(e.target.value))} />
      <small class="muted">${t("ui.create.players_hint", { min: spec.min_players, max: spec.max_players })}</small></div>
    <fieldset><legend>${t("ui.create.seats")}</legend>
      ${Array.from({ length: n - 1 }, (_, i) => i + 1).map(
        (s) => html`<div key=${s}><label for=${`seat-${s}`}>${t("ui.seat.numbered", { n: s + 1 })}</label>
        <select id=${`seat-${s}`} value=${bots[s] || ""} onChange=${(e) => setBots({ ...bots, [s]: e.target.value })}>
          <option value="">${t("ui.create.open_seat")}</option>
          ${BOT_LEVELS.map((level) => html`<option value=${level} key=${level}>${t("ui.create.bot", { level: botLevel(level) })}</option>`)}
        </select></div>`,
      )}
    </fieldset>
    <fieldset><legend>${t("ui.create.options")}</legend>
      ${spec.options
        .filter((o) => !o.restricted)
        .map(
          (o) => html`<${OptionInput} key=${`${game}.${o.name}`} game=${game} option=${o}
        value=${options[`${game}.${o.name}`]} onChange=${(v) => setOptions({ ...options, [`${game}.${o.name}`]: v })} />`,
        )}
    </fieldset>
    <fieldset><legend>${t("ui.create.time_control")}</legend>
      <div><label for="new-clock">${t("ui.create.clock")}</label>
        <select id="new-clock" value=${clock} onChange=${(e) => setClock(e.target.value)}>
          <option value="none">${t("ui.create.clock_none")}</option><option value="per_move">${t("ui.create.clock_per_move")}</option><option value="bank">${t("ui.create.clock_bank")}</option>
        </select></div>
      ${clock === "per_move" && html`<div><label for="tc-move">${t("ui.create.per_move_s")}</label><input id="tc-move" type="number" min="1" value=${tc.per_move_s} onInput=${(e) => setTc({ ...tc, per_move_s: Number(e.target.value) })} /></div>`}
      ${
        clock === "bank" &&
        html`<div><label for="tc-bank">${t("ui.create.bank_s")}</label><input id="tc-bank" type="number" min="1" value=${tc.bank_s} onInput=${(e) => setTc({ ...tc, bank_s: Number(e.target.value) })} /></div>
        <div><label for="tc-inc">${t("ui.create.increment_s")}</label><input id="tc-inc" type="number" min="0" value=${tc.increment_s} onInput=${(e) => setTc({ ...tc, increment_s: Number(e.target.value) })} /></div>`
      }
      ${
        clock !== "none" &&
        html`<div><label for="tc-timeout">${t("ui.create.on_timeout")}</label><select id="tc-timeout" value=${tc.on_timeout} onChange=${(e) => setTc({ ...tc, on_timeout: e.target.value })}>
        <option value="default_move">${t("ui.create.timeout_default_move")}</option><option value="forfeit">${t("ui.create.timeout_forfeit")}</option></select></div>`
      }
    </fieldset>
    <div class="check"><input type="checkbox" id="new-private" checked=${isPrivate} onChange=${(e) => setPrivate(e.target.checked)} /><label for="new-private">${t("ui.create.private")}</label></div>
    <${ErrorNote} error=${error} />
    <button type="submit" disabled=${busy}>${t("ui.create.submit")}</button>
  </form>`;
}

function Lobby({ me }) {
  const [games, setGames] = useState(null);
  const [filter, setFilter] = useState("");
  const [open, setOpen] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get("games").then(setGames).catch(setError);
  }, []);
  useEffect(() => {
    if (!me) {
      setOpen([]);
      return undefined;
    }
    let alive = true;
    const load = () =>
      get(`matches?joinable=true&limit=50${filter ? `&game=${filter}` : ""}`)
        .then((p) => alive && setOpen(results(p)))
        .catch((e) => alive && setError(e));
    load();
    const t = setInterval(load, 5000);
    return () => {
      alive = false;
      clearInterval(t);
    };
  }, [filter, me]);
  const join = async (m) => {
    try {
      await post(`matches/${m.id}/join`, {});
      navigate(`/matches/${m.id}`);
    } catch (e) {
      setError(e);
    }
  };
  return html`<main class="lobby">
    <h1>${t("ui.nav.lobby")}</h1>
    <p class="muted">${withParts(t("ui.lobby.new_to_a_game"), { link: html`<${Link} href="/rules">${t("ui.lobby.how_to_play")}<//>` })}</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <section aria-labelledby="open-h"><h2 id="open-h">${t("ui.lobby.open_matches")}</h2>
      <label for="filter-game">${t("ui.lobby.filter")}</label>
      <select id="filter-game" value=${filter} onChange=${(e) => setFilter(e.target.value)}>
        <option value="">${t("ui.lobby.all_games")}</option>
        ${(games || []).map((g) => html`<option value=${g.id}>${gameName(g.id)}</option>`)}
      </select>
      ${
        !me
          ? html`<p>${withParts(t("ui.lobby.sign_in_first"), { link: html`<${Link} href="/signin?next=/lobby">${t("ui.nav.sign_in")}<//>` })}</p>`
          : open === null
            ? html`<p>${t("ui.common.loading")}</p>`
            : open.length === 0
              ? html`<p class="muted">${t("ui.lobby.none_open")}</p>`
              : html`<ul class="matches">${open.map(
                  (m) => html`<${MatchRow} key=${m.id} m=${m} me=${me}
            action=${html`<button type="button" onClick=${() => join(m)}>${t("ui.lobby.join")}</button>`} />`,
                )}</ul>`
      }
    </section>
    ${games && html`<${CreateMatch} games=${games} me=${me} />`}
  </main>`;
}

// --- profiles and leaderboards ----------------------------------------------------------------------

const ONE_DECIMAL = { minimumFractionDigits: 1, maximumFractionDigits: 1 };

function RatingChart({ points }) {
  if (!points || points.length < 2) return null;
  const w = 320,
    h = 120,
    pad = 8;
  const ys = points.map((p) => p.y);
  const lo = Math.min(...ys),
    hi = Math.max(...ys),
    span = hi - lo || 1;
  const xy = points.map((p, i) => [
    pad + (i * (w - 2 * pad)) / (points.length - 1),
    h - pad - ((p.y - lo) * (h - 2 * pad)) / span,
  ]);
  return html`<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label=${t("ui.profile.chart", { low: formatNumber(lo, ONE_DECIMAL), high: formatNumber(hi, ONE_DECIMAL) })}>
    <polyline fill="none" stroke="currentColor" stroke-width="2" points=${xy.map((p) => p.join(",")).join(" ")} />
    ${xy.map(([x, y]) => html`<circle cx=${x} cy=${y} r="2.5" />`)}
  </svg>`;
}

function RatingHistory({ username, game }) {
  const [points, setPoints] = useState(null);
  useEffect(() => {
    optional(`users/${username}/ratings/${game}`)
      .then((r) => {
        const list = results(r?.history ?? r);
        setPoints(list.map((p, i) => ({ x: i, y: Number(p.ordinal ?? p.rating ?? p.mu ?? 0) })));
      })
      .catch(() => setPoints([]));
  }, [username, game]);
  return html`<${RatingChart} points=${points} />`;
}

// The profile's counts the interface has words for; another (a newer server's) shows its code.
const COUNTS = ["played", "active", "won"];

function Profile({ username, me }) {
  const [p, setP] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setP(null);
    get(`users/${username}`).then(setP).catch(setError);
  }, [username]);
  if (error) return html`<main><${ErrorNote} error=${error} /></main>`;
  if (!p) return html`<main><p>${t("ui.common.loading")}</p></main>`;
  return html`<main>
    <h1>${p.display_name || p.username}</h1>
    <p class="muted">${[
      t("ui.profile.joined", { date: when(p.date_joined) }),
      ...Object.entries(p.counts || {}).map(([k, v]) =>
        COUNTS.includes(k) ? t(`ui.profile.count.${k}`, { count: v }) : `${formatNumber(v)} ${k}`,
      ),
    ].join(" · ")}</p>
    <${ProfileCircles} username=${p.username} me=${me} />
    <section aria-labelledby="ratings-h"><h2 id="ratings-h">${t("ui.profile.ratings")}</h2>
      ${
        p.ratings?.length
          ? html`<table><thead><tr><th>${t("ui.profile.game")}</th><th>${t("ui.profile.rating")}</th><th>${t("ui.profile.matches")}</th><th>${t("ui.profile.history")}</th></tr></thead><tbody>
        ${p.ratings.map(
          (
            r,
          ) => html`<tr><td>${gameName(r.game)}</td><td>${formatNumber(Math.round(r.rating ?? 1500 + 60 * r.ordinal))}${r.provisional ? ` ${t("ui.profile.provisional")}` : r.rank ? ` · #${formatNumber(r.rank)}` : ""}</td><td>${formatNumber(r.matches)}</td>
          <td><${RatingHistory} username=${p.username} game=${r.game} /></td></tr>`,
        )}</tbody></table>`
          : html`<p class="muted">${t("ui.profile.no_rating")}</p>`
      }
    </section>
    <${PlayerStats} stats=${p.stats} />
    <section aria-labelledby="recent-h"><h2 id="recent-h">${t("ui.profile.recent")}</h2>
      ${p.recent_matches?.length ? html`<ul class="matches">${p.recent_matches.map((m) => html`<${MatchRow} key=${m.id} m=${m} me=${me} />`)}</ul>` : html`<p class="muted">${t("ui.profile.none_yet")}</p>`}
    </section>
  </main>`;
}

// --- the app -------------------------------------------------------------------------------------------

function App() {
  const path = usePath();
  const me = useSession();
  const [mine, mineError] = useMine(me);
  const waiting = mine?.waiting.length || 0;
  useEffect(() => {
    document.title = waiting ? t("ui.title.waiting", { count: waiting }) : t("ui.title.plain");
  }, [waiting]);
  let page;
  let m;
  if (path === "/signin" || path === "/signin/") page = html`<${AuthForm} mode="signin" />`;
  else if (path.startsWith("/signup")) page = html`<${AuthForm} mode="signup" />`;
  else if (path.startsWith("/lobby") || path.startsWith("/games")) page = html`<${Lobby} me=${me} />`;
  else if ((m = path.match(/^\/matches\/([A-Za-z0-9_-]+)\/?$/))) {
    const at = new URLSearchParams(location.search).get("at");
    // Anyone may watch or replay a public match; the server answers 404 for one they may not see.
    page = at
      ? html`<${ReplayPage} key=${`${m[1]}-replay`} id=${m[1]} at=${Number(at)} me=${me} />`
      : html`<${MatchPage} key=${m[1]} id=${m[1]} me=${me} />`;
  } else if ((m = path.match(/^\/users\/([\w.@+-]+)\/?$/)))
    // Profiles and leaderboards are for members (the API asks a token); a visitor signs in first.
    page = me ? html`<${Profile} key=${m[1]} username=${m[1]} me=${me} />` : html`<${AuthForm} mode="signin" />`;
  else if ((m = path.match(/^\/leaderboards(?:\/([\w-]+))?\/?$/)))
    page = me ? html`<${Leaderboard} key=${m[1]} game=${m[1]} />` : html`<${AuthForm} mode="signin" />`;
  else if (path.match(/^\/settings\/?$/)) page = me ? html`<${SettingsPage} />` : html`<${AuthForm} mode="signin" />`;
  else if (path.match(/^\/rules\/?$/)) page = html`<${RulesIndex} />`;
  else if ((m = path.match(/^\/rules\/([a-z]+)\/?$/))) page = html`<${RulesPage} key=${m[1]} game=${m[1]} />`;
  else if (path.match(/^\/tournaments\/?$/))
    page = me ? html`<${TournamentsPage} me=${me} />` : html`<${AuthForm} mode="signin" />`;
  else if ((m = path.match(/^\/tournaments\/([A-Za-z0-9_-]+)\/?$/))) {
    page = me ? html`<${TournamentPage} key=${m[1]} id=${m[1]} me=${me} />` : html`<${AuthForm} mode="signin" />`;
  } else if (path.match(/^\/feed\/?$/)) page = me ? html`<${FeedPage} />` : html`<${AuthForm} mode="signin" />`;
  else if (path.match(/^\/away\/?$/)) page = me ? html`<${AwayPage} />` : html`<${AuthForm} mode="signin" />`;
  else if (path.startsWith("/invitations")) page = me ? html`<${Invitations} />` : html`<${AuthForm} mode="signin" />`;
  else if (path.match(/^\/join\/?$/))
    page = me ? html`<${JoinByCode} key=${location.hash} />` : html`<${AuthForm} mode="signin" />`;
  else page = html`<${MyGames} me=${me} mine=${mine} error=${mineError} />`;
  return html`<${Nav} me=${me} waiting=${waiting} />${page}`;
}

await initI18n(); // every catalogue, before the first word is shown
render(html`<${App} />`, document.getElementById("app"));
