// Tabula's service worker (issue 28): shows a Web Push notice and opens its match when clicked.
// A push carries no game content ({type, match, n, title}): the page shows what happened.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  const url = data.match ? `/matches/${data.match}` : "/";
  event.waitUntil(
    self.registration.showNotification(data.title || "Tabula", {
      body: "Open Tabula to see it.",
      tag: data.match || data.type || "tabula", // a newer notice about a match replaces the older one
      renotify: true,
      data: { url },
    }),
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
