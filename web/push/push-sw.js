// readybell push handlers, imported by the customer page's service worker (/sw.js). The payload
// is what src/channels/push.ts sends: { type: 'ring', ticket_id, display_number, title, body, url }.
self.addEventListener('push', function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = data.title || 'Your order is ready';
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || '',
    // One notification per ticket: a reminder replaces the earlier ring instead of stacking.
    tag: data.ticket_id || 'readybell',
    renotify: true,
    requireInteraction: true,
    vibrate: [300, 120, 300, 120, 300],
    icon: '/assets/icon.svg',
    data: { url: data.url || '' },
  }));
});

self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var raw = (event.notification.data && event.notification.data.url) || '';
  var target;
  try { target = new URL(raw, self.location.origin); } catch (e) { return; }
  // Only ever open this service's own pages.
  if (target.origin !== self.location.origin) return;
  event.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) {
      if (new URL(list[i].url).pathname === target.pathname && 'focus' in list[i]) return list[i].focus();
    }
    return self.clients.openWindow(target.href);
  }));
});
