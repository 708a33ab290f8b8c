// The page's service worker: after one visit the page works offline. Every file of the page is
// kept in a cache named after this build (finish_site.py writes the version and the file list
// below), so a new build is a new cache and the old one is deleted when it takes over (when the
// page asks: the bar's notice). Files are answered from the cache first; the Chinese font, fetched
// only when something needs it, is kept once it has been fetched.
'use strict';
const VERSION = '@VERSION@';
const CACHE = 'softmax-lab-' + VERSION;
const FILES = @FILES@;
const ON_DEMAND = @ON_DEMAND@;

// A first visit's worker takes over at once; a new build's waits beside the one serving open pages
// until the page asks (page.js: the bar's "New version: reload"), so a page is never swapped under
// a student.
// Each file from the server itself ({cache: 'reload'}), never from the browser's HTTP cache: that
// could still hold the previous build's index.html or page.js beside this build's runtime.
self.addEventListener('install', event => {
  event.waitUntil(caches.open(CACHE).then(cache => cache.addAll(FILES.map(name => new Request(name, { cache: 'reload' })))));
});

self.addEventListener('message', event => {
  if (event.data === 'take-over') self.skipWaiting();
});

self.addEventListener('activate', event => {
  event.waitUntil(caches.keys()
    .then(names => Promise.all(names.filter(name => name.startsWith('softmax-lab-') && name !== CACHE)
                                    .map(name => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', event => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  // The page's address carries its state in the query: one cached index.html answers them all.
  const navigation = request.mode === 'navigate';
  event.respondWith(caches.open(CACHE).then(async cache => {
    const cached = await cache.match(navigation ? 'index.html' : request, { ignoreSearch: navigation });
    if (cached) return cached;
    const response = await fetch(request);
    const name = url.pathname.substring(url.pathname.lastIndexOf('/') + 1);
    if (response.ok && ON_DEMAND.includes(name)) await cache.put(request, response.clone());
    return response;
  }));
});
