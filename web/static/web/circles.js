// Circles (issue 27): follow and block on a profile, the feed of people one follows, and the chat
// preference. A block is the blocker's alone: the page never shows anyone who blocks them.
import { del, get, patch, put } from "./api.js";
import { ErrorNote, Link, gameName, html, useEffect, useState, when } from "./ui.js";

export function ProfileCircles({ username, me }) {
  const [following, setFollowing] = useState(null);
  const [blocked, setBlocked] = useState(null);
  const [scope, setScope] = useState("all");
  const [error, setError] = useState(null);
  const load = () =>
    Promise.all([get("me/following"), get("me/blocks")])
      .then(([f, b]) => {
        setFollowing(f.some((x) => x.username === username) ? f.find((x) => x.username === username) : false);
        const mine = b.find((x) => x.username === username);
        setBlocked(mine || false);
        if (mine) setScope(mine.scope);
      })
      .catch(setError);
  useEffect(() => {
    if (me && me !== username) load();
  }, [username, me]);
  if (!me || me === username || following === null) return null;
  const act = (promise) => promise.then(load).catch(setError);
  return html`<section class="circles" aria-label="Follow and block">
    ${
      following
        ? html`<span>You follow ${username}${following.mutual ? " (friends)" : ""}.</span>
        <button type="button" data-unfollow onClick=${() => act(del(`me/following/${username}`))}>Unfollow</button>`
        : html`<button type="button" data-follow onClick=${() => act(put(`me/following/${username}`))}>Follow</button>`
    }
    ${
      blocked
        ? html`<span>You block ${username} (${blocked.scope}).</span>
        <button type="button" data-unblock onClick=${() => act(del(`me/blocks/${username}`))}>Unblock</button>`
        : html`<label>Block from <select value=${scope} onChange=${(e) => setScope(e.target.value)}>
          <option value="all">everything</option><option value="games">games</option><option value="messages">messages</option>
        </select></label>
        <button type="button" data-block onClick=${() => act(put(`me/blocks/${username}`, { scope }))}>Block</button>`
    }
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
  </section>`;
}

export function FeedPage() {
  const [feed, setFeed] = useState(null);
  const [people, setPeople] = useState({ following: [], followers: [] });
  const [chat, setChat] = useState("all");
  const [error, setError] = useState(null);
  useEffect(() => {
    Promise.all([get("me/feed"), get("me/following"), get("me/followers"), get("me")])
      .then(([f, following, followers, me]) => {
        setFeed(f);
        setPeople({ following, followers });
        setChat(me.preferences?.chat || "all");
      })
      .catch(setError);
  }, []);
  const setPreference = (value) => {
    setChat(value);
    get("me")
      .then((me) => patch("me", { preferences: { ...(me.preferences || {}), chat: value } }))
      .catch(setError);
  };
  const person = (p) =>
    html`<li key=${p.username}><${Link} href=${`/users/${p.username}`}>${p.username}<//>${p.mutual ? " (friends)" : ""}</li>`;
  return html`<main class="feed">
    <h1>Feed</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      feed === null
        ? html`<p>Loading…</p>`
        : feed.length === 0
          ? html`<p class="muted">Nothing yet: follow players from their profile to see their public matches here.</p>`
          : html`<ul class="matches">${feed.map(
              (e) => html`<li key=${`${e.match.id}${e.event}`} data-feed=${e.event}>
          ${e.players.join(", ")} ${e.event} a game of ${gameName(e.match.game)} · ${when(e.at)} ·
          <${Link} href=${`/matches/${e.match.id}`}>${e.event === "finished" ? "See it" : "Watch"}<//></li>`,
            )}</ul>`
    }
    <section aria-labelledby="people-h"><h2 id="people-h">People</h2>
      <p>You follow: ${people.following.length ? "" : html`<span class="muted">nobody yet.</span>`}</p>
      <ul>${people.following.map(person)}</ul>
      <p>Following you: ${people.followers.length ? "" : html`<span class="muted">nobody yet.</span>`}</p>
      <ul>${people.followers.map(person)}</ul>
    </section>
    <section aria-labelledby="chatpref-h"><h2 id="chatpref-h">Chat</h2>
      <label>Show chat messages from <select name="chat-preference" value=${chat} onChange=${(e) => setPreference(e.target.value)}>
        <option value="all">everyone</option><option value="friends">friends only</option><option value="off">nobody</option>
      </select></label>
    </section>
  </main>`;
}
