// readybell service worker for customer pages (scope /t/). Kept minimal on purpose: it makes the
// page installable (Add to Home Screen, which iOS requires for Web Push) and never caches ticket
// pages, whose state must always come from the server.
//
// PUSH: the push channel adds its 'push' and 'notificationclick' listeners below this line
// (show the ring as a notification; focus or open the ticket's page on click).

importScripts('/push-sw.js');

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
