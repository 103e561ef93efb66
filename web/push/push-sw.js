// readybell push handlers, imported by the customer page's service worker (/sw.js). The payload
// is what src/channels/push.ts sends: { type: 'ring', ring_id, ticket_id, display_number, title, body, url }.
//
// One ring can arrive twice: a server that crashed after the push service accepted a ring cannot
// know that it did, and sends it again (decision 0007). The push service replaces a copy it still
// holds (same Topic); a copy that already reached this device is recognised by its ring id and
// shown again without sound or vibration, so the customer is alerted once per ring. (Every push
// must show a notification, or the browser shows one of its own and may drop the subscription.)
var RINGS_SEEN = 'readybell-rings-seen';
var RINGS_KEPT = 50;

// Resolves true the first time a ring id is seen on this device. Remembered in Cache Storage,
// which outlives the worker between pushes; if it fails, alerting twice beats not alerting.
function firstSighting(ringId) {
  if (!ringId || typeof caches === 'undefined') return Promise.resolve(true);
  var key = new Request(self.location.origin + '/__readybell/rings-seen/' + encodeURIComponent(ringId));
  return caches
    .open(RINGS_SEEN)
    .then((cache) =>
      cache.match(key).then((hit) => {
        if (hit) return false;
        return cache
          .put(key, new Response(''))
          .then(() => cache.keys())
          .then((keys) => Promise.all(keys.slice(0, Math.max(0, keys.length - RINGS_KEPT)).map((k) => cache.delete(k))))
          .then(() => true);
      }),
    )
    .catch(() => true);
}

self.addEventListener('push', (event) => {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  var title = data.title || 'Your order is ready';
  event.waitUntil(
    firstSighting(data.ring_id).then((first) => {
      var options = {
        body: data.body || '',
        // One notification per ticket: a reminder replaces the earlier ring instead of stacking.
        tag: data.ticket_id || 'readybell',
        renotify: first,
        requireInteraction: true,
        icon: '/assets/icon.svg',
        data: { url: data.url || '', ring_id: data.ring_id || null },
      };
      if (first) options.vibrate = [300, 120, 300, 120, 300];
      else options.silent = true;
      return self.registration.showNotification(title, options);
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  var raw = event.notification.data?.url || '';
  var target;
  try {
    target = new URL(raw, self.location.origin);
  } catch {
    return;
  }
  // Only ever open this service's own pages.
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      for (let i = 0; i < list.length; i++) {
        if (new URL(list[i].url).pathname === target.pathname && 'focus' in list[i]) return list[i].focus();
      }
      return self.clients.openWindow(target.href);
    }),
  );
});
