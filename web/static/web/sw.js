// Tabula's service worker (issue 28): shows a Web Push notice and opens its match when clicked.
// A push carries no game content ({type, match, n, title}): the page shows what happened. Its
// title speaks the recipient's stored language (the server's); the line under it is the client's,
// in the push's `lang` when it says one, else the browser's, from the interface's catalogue.
const LANGUAGES = ["en", "pl", "es"];

function languageOf(data) {
  const tags = [data.lang, ...(self.navigator.languages || [self.navigator.language])];
  for (const tag of tags) {
    const base = String(tag || "")
      .toLowerCase()
      .split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function bodyFor(data) {
  try {
    const response = await fetch(`/static/web/locales/ui.${languageOf(data)}.json`);
    const messages = await response.json();
    const t = (key) => messages[key] || "Open Tabula to see it.";
    return t("ui.push.body");
  } catch (e) {
    return "Open Tabula to see it."; // offline: the notice still shows
  }
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  const url = data.match ? `/matches/${data.match}` : "/";
  event.waitUntil(
    bodyFor(data).then((body) =>
      self.registration.showNotification(data.title || "Tabula", {
        body,
        tag: data.match || data.type || "tabula", // a newer notice about a match replaces the older one
        renotify: true,
        data: { url },
      }),
    ),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url || "/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const w of windows) {
        if (new URL(w.url).pathname === url && "focus" in w) return w.focus();
      }
      return self.clients.openWindow(url);
    }),
  );
});

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
