// Circles (issue 27): follow and block on a profile, the feed of people one follows, and the chat
// preference. A block is the blocker's alone: the page never shows anyone who blocks them.
import { del, get, patch, put } from "./api.js";
import { BLOCK_SCOPES, scopeName } from "./account.js";
import { formatList, t } from "./i18n.js";
import { ErrorNote, Link, gameName, html, useEffect, useState, when } from "./ui.js";

const FEED_EVENTS = ["started", "finished"];
const CHAT_CHOICES = ["all", "friends", "off"];

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
  return html`<section class="circles" aria-label=${t("account.circles.label")}>
    ${
      following
        ? html`<span>${following.mutual ? t("account.circles.following_friend", { name: username }) : t("account.circles.following", { name: username })}</span>
        <button type="button" data-unfollow onClick=${() => act(del(`me/following/${username}`))}>${t("account.circles.unfollow")}</button>`
        : html`<button type="button" data-follow onClick=${() => act(put(`me/following/${username}`))}>${t("account.circles.follow")}</button>`
    }
    ${
      blocked
        ? html`<span>${t("account.circles.blocking", { name: username, scope: scopeName(blocked.scope) })}</span>
        <button type="button" data-unblock onClick=${() => act(del(`me/blocks/${username}`))}>${t("account.blocks.unblock")}</button>`
        : html`<label>${t("account.circles.block_from")} <select value=${scope} onChange=${(e) => setScope(e.target.value)}>
          ${BLOCK_SCOPES.map((s) => html`<option key=${s} value=${s}>${scopeName(s)}</option>`)}
        </select></label>
        <button type="button" data-block onClick=${() => act(put(`me/blocks/${username}`, { scope }))}>${t("account.circles.block")}</button>`
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
    html`<li key=${p.username}><${Link} href=${`/users/${p.username}`}>${p.username}<//>${
      p.mutual ? html` <span class="muted">${t("account.feed.friends")}</span>` : ""
    }</li>`;
  // "ann and ben started a game of Enka": the verb agrees with the number of people (count).
  const happened = (e) =>
    FEED_EVENTS.includes(e.event)
      ? t(`account.feed.event.${e.event}`, {
          count: e.players.length,
          players: formatList(e.players),
          game: gameName(e.match.game),
        })
      : e.event;
  return html`<main class="feed">
    <h1>${t("account.feed.title")}</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      feed === null
        ? html`<p>${t("account.common.loading")}</p>`
        : feed.length === 0
          ? html`<p class="muted">${t("account.feed.empty")}</p>`
          : html`<ul class="matches">${feed.map(
              (e) => html`<li key=${`${e.match.id}${e.event}`} data-feed=${e.event}>
          ${happened(e)} · ${when(e.at)} ·${" "}<${Link} href=${`/matches/${e.match.id}`}>${e.event === "finished" ? t("account.feed.see") : t("account.feed.watch")}<//></li>`,
            )}</ul>`
    }
    <section aria-labelledby="people-h"><h2 id="people-h">${t("account.feed.people")}</h2>
      <p>${t("account.feed.you_follow")} ${people.following.length ? "" : html`<span class="muted">${t("account.feed.nobody_followed")}</span>`}</p>
      <ul>${people.following.map(person)}</ul>
      <p>${t("account.feed.followers")} ${people.followers.length ? "" : html`<span class="muted">${t("account.feed.nobody_following")}</span>`}</p>
      <ul>${people.followers.map(person)}</ul>
    </section>
    <section aria-labelledby="chatpref-h"><h2 id="chatpref-h">${t("account.feed.chat")}</h2>
      <label>${t("account.feed.chat_from")} <select name="chat-preference" value=${chat} onChange=${(e) => setPreference(e.target.value)}>
        ${CHAT_CHOICES.map((c) => html`<option key=${c} value=${c}>${t(`account.feed.chat_choice.${c}`)}</option>`)}
      </select></label>
    </section>
  </main>`;
}
