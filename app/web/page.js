// The page around the canvas (index.html): its start (the address's settings, the imported files
// and the Chinese font brought back before the app runs), the file bar and its words in the app's
// language, sessions and imports through the browser's file pickers and drag-and-drop, exports
// streamed into a .zip (a download, or a file the student picks) with progress and Cancel, touch
// input fed to GLFW's mouse, the text mirror, the address, the service worker, and a student's side
// of a hosted class (the page at /class on the teacher's app: "The class" below).
// The C++ side is web_main.cpp and page_calls.cpp; what it calls here is named smlab*.
'use strict';

// ─── Start ──────────────────────────────────────────────────────────────────────────────────────
// The page of a hosted class: served by the teacher's app at /class, its join code in the address
// (?code=…, from the QR code) or typed into the join form.
const CLASS_PAGE = /\/class\/?$/.test(location.pathname);
// The address's settings as NAME VALUE pairs (web_main.cpp checks them: url_state.hpp).
const urlArguments = [];
for (const [name, value] of new URLSearchParams(location.search))
  if (!(CLASS_PAGE && name === 'code')) urlArguments.push(name, value);

// Imported files up to this size in all are kept in IndexedDB (web_app.hpp holds the same number).
const KEPT_IMPORT_LIMIT = 64e6;
// CSV exports estimated above this are not built in memory (web_app.hpp: whole_export_limit_bytes;
// page.wholeExportLimit, which the browser test lowers to reach the offer with a small export).
const WHOLE_EXPORT_LIMIT = 256e6;
const IMPORT_DIR = '/imports';
const CHINESE_FONT_PATH = '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc';

const page = {
  app: 0,              // the WebApp the C++ side handed over (smlabStarted)
  keyboardNavigation: false,  // Dear ImGui's keyboard navigation is on (Tab into the canvas)
  words: {},           // the bar's and dialogs' words in the app's language (smlabSetWords)
  exporting: null,     // the export running: {kind, label, sink, bytes}
  wholeExportLimit: WHOLE_EXPORT_LIMIT,
  address: { timer: 0, pending: null, last: 0, written: null },
};

function word(key, ...args) {
  let text = page.words[key] || '';
  args.forEach((value, index) => { text = text.split('{' + index + '}').join(String(value)); });
  return text;
}

// "1.6 kB", "3.2 MB": a size for the page's messages.
function sizeText(bytes) {
  return bytes < 1e6 ? (bytes / 1e3).toFixed(1) + ' kB' : (bytes / 1e6).toFixed(1) + ' MB';
}

function call(name, returns, types, values) {
  Module.smlabInputSeen = 1;  // what the app is told may change what it shows: a frame follows
  return Module.ccall(name, returns, ['number', ...types], [page.app, ...values]);
}

// Anything that stops the page before its first frame is said in the bar, not left on a black
// canvas under "Downloading…".
window.addEventListener('error', event => {
  if (!document.body.dataset.firstFrame) smlabShowError('softmax-lab: ' + (event.message || event.error || 'error'));
});
window.addEventListener('unhandledrejection', event => {
  if (!document.body.dataset.firstFrame) smlabShowError('softmax-lab: ' + (event.reason && event.reason.message ||
                                                                            event.reason || 'error'));
});

// The app draws a frame only when something may have changed (web_main.cpp's tick): any input
// counts, whether its target is the canvas or the page.
for (const type of ['pointerdown', 'pointermove', 'pointerup', 'mousedown', 'mousemove', 'mouseup', 'wheel',
                    'keydown', 'keyup', 'keypress', 'touchstart', 'touchmove', 'touchend', 'touchcancel', 'drop',
                    'focus', 'blur', 'resize', 'visibilitychange'])
  window.addEventListener(type, () => { Module.smlabInputSeen = 1; }, { capture: true, passive: true });

// ─── IndexedDB: the imported files ──────────────────────────────────────────────────────────────
function openStore() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open('softmax-lab', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('imports');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function storeImports(record) {
  const db = await openStore();
  await new Promise((resolve, reject) => {
    const transaction = db.transaction('imports', 'readwrite');
    if (record) transaction.objectStore('imports').put(record, 'current');
    else transaction.objectStore('imports').delete('current');
    transaction.oncomplete = resolve;
    transaction.onerror = () => reject(transaction.error);
  });
  db.close();
}

async function storedImports() {
  const db = await openStore();
  const record = await new Promise((resolve, reject) => {
    const request = db.transaction('imports').objectStore('imports').get('current');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  db.close();
  return record;
}

// ─── The Chinese font: one loader ───────────────────────────────────────────────────────────────
// The page's data holds only "简体中文"; the full font (the tables' and lessons' characters and the
// common ones) comes when something needs it: the page starts in Chinese, Chinese is chosen, or
// imported tokens hold characters beyond Latin. Every use goes through chineseFont.need().
//
// The bytes are fetched at once, but written into the file system only once the page's data
// package is in: that package creates the same path (the "简体中文" font, platform/fonts.hpp), and
// a file written first made its mknod fail (EEXIST) and the page hang on a fast (cached) fetch.
// Before the runtime is up the writing waits for onRuntimeInitialized, which runs after every
// run dependency (the data package's among them) and before main.
const chineseFont = {
  bytes: null,       // the fetched file, once it has arrived
  fetching: null,    // the fetch's promise
  installed: false,  // written over the short font in the file system
  runtimeUp: false,  // the data package is in: the path may be written
  waiting: [],       // need()s that wait for the runtime: [resolve, reject]

  fetch() {
    if (!this.fetching)
      this.fetching = fetch('zh-font.ttf').then(async response => {
        if (!response.ok) throw new Error('zh-font.ttf: HTTP ' + response.status);
        this.bytes = new Uint8Array(await response.arrayBuffer());
        return this.bytes;
      }).catch(error => { this.fetching = null; throw error; });
    return this.fetching;
  },

  install() {
    if (this.installed) return;
    Module.FS.writeFile(CHINESE_FONT_PATH, this.bytes);
    this.installed = true;
    Module.smlabChineseFontLoaded = true;
  },

  // Resolves once the font is in the file system (the app's next font build uses it).
  need() {
    if (this.installed) return Promise.resolve();
    return this.fetch().then(() => {
      if (this.runtimeUp) return this.install();
      return new Promise((resolve, reject) => this.waiting.push([resolve, reject]));
    });
  },

  runtimeReady() {
    this.runtimeUp = true;
    const waiting = this.waiting.splice(0);
    if (!this.bytes) return;
    try {
      this.install();
      waiting.forEach(([resolve]) => resolve());
    } catch (error) {
      console.warn('Chinese font: ' + error);
      waiting.forEach(([, reject]) => reject(error));
    }
  },
};

// Characters the "简体中文" font lacks and DejaVu Sans does not have either: CJK and beyond.
function needsChineseFont(text) { return /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(text); }

function startsInChinese() {
  const chinese = value => ['zh-cn', 'zh', 'zh_cn'].includes(String(value).toLowerCase());
  const params = new URLSearchParams(location.search);
  if (params.has('lang')) return chinese(params.getAll('lang').pop());
  const look = ['lang', 'theme', 'font', 'colormap'];
  if ([...params.keys()].some(name => !look.includes(name))) return false;
  try {
    const stored = JSON.parse(localStorage.getItem('softmax-lab-session') || 'null');
    return stored !== null && chinese(stored.lang);
  } catch (e) {
    return false;
  }
}

// The app asks (web_main.cpp: Chinese chosen): the font, then the app is told.
function smlabLoadChineseFont() {
  smlabShowStatus(word('page.font_loading'));
  chineseFont.need()
    .then(() => { smlabShowStatus(''); call('smlab_chinese_font_loaded', null, ['number', 'string'], [1, '']); })
    .catch(error => call('smlab_chinese_font_loaded', null, ['number', 'string'], [0, String(error.message || error)]));
}

// ─── Messages and downloads ─────────────────────────────────────────────────────────────────────
function smlabShowError(line) {
  const bar = document.getElementById('error');
  bar.textContent = line;
  bar.title = line;
}

function smlabShowStatus(text) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.title = text;
}

function offerBlob(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
}

// A file the app wrote to its in-memory file system (F12, Export PNG, Record GIF): a download.
function smlabDownload(path) {
  const bytes = Module.FS.readFile(path);
  const name = path.substring(path.lastIndexOf('/') + 1);
  const types = { png: 'image/png', gif: 'image/gif', svg: 'image/svg+xml', csv: 'text/csv', json: 'application/json' };
  const type = types[name.substring(name.lastIndexOf('.') + 1)] || 'application/octet-stream';
  offerBlob(new Blob([bytes], { type }), name);
}

// Save where the browser lets the student pick a file (File System Access), else a download.
async function saveFile(blob, name, description, accept) {
  if (typeof window.showSaveFilePicker === 'function') {
    let handle = null;
    try {
      handle = await window.showSaveFilePicker({ suggestedName: name, types: [{ description, accept }] });
    } catch (error) {
      if (error && error.name === 'AbortError') return null;  // the student closed the dialog
      handle = null;                                           // not allowed here: a download instead
    }
    if (handle) {
      const writable = await handle.createWritable();
      await writable.write(blob);
      await writable.close();
      return { saved: handle.name || name };
    }
  }
  offerBlob(blob, name);
  return { downloaded: name };
}

// ─── Sessions ───────────────────────────────────────────────────────────────────────────────────
async function smlabSaveSession() {
  const json = call('smlab_session_json', 'string', [], []);
  try {
    const done = await saveFile(new Blob([json], { type: 'application/json' }), 'softmax-lab-session.json',
                                'Softmax Lab session', { 'application/json': ['.json'] });
    if (done && done.saved) smlabShowStatus(word('page.session_saved', done.saved));
    if (done && done.downloaded) smlabShowStatus(word('page.session_downloaded', done.downloaded));
  } catch (error) {
    smlabShowError('softmax-lab: ' + (error.message || error));
  }
}

function smlabOpenSession() { document.getElementById('session-file').click(); }

async function openSessionFile(file) {
  if (file.size > (4 << 20)) {  // session_max_bytes: the desktop's limit
    smlabShowError("softmax-lab: '" + file.name + "' is larger than 4 MB: not a session file");
    return;
  }
  call('smlab_load_session', 'string', ['string', 'string'], [await file.text(), file.name]);
}

// ─── Imports: picked or dropped files through the desktop's readers ─────────────────────────────
function smlabImportFiles() { document.getElementById('import-file').click(); }

// A session file: a JSON object with the session format's "version" and "params".
async function isSessionFile(file) {
  if (!file.name.toLowerCase().endsWith('.json') || file.size > (1 << 20)) return false;
  try {
    const value = JSON.parse(await file.text());
    return value !== null && typeof value === 'object' && !Array.isArray(value) && 'version' in value;
  } catch (e) {
    return false;
  }
}

// A name the file system and the --import spec take: no folder, no ':' (FILE:ARRAY=ROLE), not hidden.
function keptName(name) {
  const clean = name.replace(/[\/\\:]/g, '_').replace(/^\.+/, '_');
  return clean.length > 0 ? clean : 'import';
}

async function importFiles(files) {
  const data = [], tokens = [];
  for (const file of files) {
    const lower = file.name.toLowerCase();
    (lower.endsWith('.txt') || lower.endsWith('.json') ? tokens : data).push(file);
  }
  const FS = Module.FS;
  try { FS.mkdir(IMPORT_DIR); } catch (e) { /* there already */ }
  const written = [];
  let total = 0;
  for (const file of [...data, ...tokens]) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const name = keptName(file.name);
    FS.writeFile(IMPORT_DIR + '/' + name, bytes);
    written.push({ name, bytes, tokens: tokens.includes(file) });
    total += bytes.length;
  }
  const specs = written.filter(f => !f.tokens).map(f => IMPORT_DIR + '/' + f.name);
  const tokenEntry = written.filter(f => f.tokens).pop();
  const tokenFile = tokenEntry ? IMPORT_DIR + '/' + tokenEntry.name : '';
  // A file whose name says no role (layer3_head0.npy): the student says it, as FILE:ROLE would.
  const needed = JSON.parse(call('smlab_import_roles_needed', 'string', ['string'], [specs.join('\n')]));
  for (let i = 0; i < specs.length; ++i) {
    if (!needed[i]) continue;
    const role = await chooseRole(specs[i].substring(IMPORT_DIR.length + 1));
    if (!role) return;  // the student closed the chooser: nothing is imported
    specs[i] += ':' + role;
  }
  // Token labels beyond Latin (Chinese words) need the full Chinese font, in either language.
  if (tokenEntry && needsChineseFont(new TextDecoder().decode(tokenEntry.bytes))) {
    try {
      await chineseFont.need();
      call('smlab_chinese_font_loaded', null, ['number', 'string'], [1, '']);
    } catch (error) {
      console.warn('Chinese font: ' + error);  // the labels show '?' for what the font lacks
    }
  }
  const error = call('smlab_import', 'string', ['string', 'string'], [specs.join('\n'), tokenFile]);
  if (error) return;
  // Kept for a reload: the files of this import (token labels alone relabel the data kept before).
  try {
    let record = { files: written.filter(f => !f.tokens).map(f => ({ name: f.name, bytes: f.bytes })), tokens: null };
    if (record.files.length === 0) {
      const before = await storedImports();
      record = before ? { files: before.files, tokens: null } : null;
      total += record ? record.files.reduce((sum, f) => sum + f.bytes.length, 0) : 0;
    }
    if (record && tokenEntry) record.tokens = { name: tokenEntry.name, bytes: tokenEntry.bytes };
    if (record && total <= KEPT_IMPORT_LIMIT) {
      await storeImports(record);
      smlabShowStatus(word('page.import_kept', sizeText(total), sizeText(KEPT_IMPORT_LIMIT)));
    } else {
      await storeImports(null);
      smlabShowStatus(word('page.import_not_kept', sizeText(total), sizeText(KEPT_IMPORT_LIMIT)));
    }
  } catch (e) {
    smlabShowStatus(word('page.import_not_kept', sizeText(total), sizeText(KEPT_IMPORT_LIMIT)));
  }
}

// The kept files back in the file system; whether their tokens need the full Chinese font.
async function restoreImports() {
  try { Module.FS.mkdir(IMPORT_DIR); } catch (e) { /* there already */ }
  const record = await storedImports();
  if (!record) return false;
  for (const file of [...record.files, ...(record.tokens ? [record.tokens] : [])])
    Module.FS.writeFile(IMPORT_DIR + '/' + file.name, file.bytes);
  return record.tokens ? needsChineseFont(new TextDecoder().decode(record.tokens.bytes)) : false;
}

// The role chooser: which role the file `name` holds (Q, K, V, scores, weights), or null.
function chooseRole(name) {
  const dialog = document.getElementById('role-dialog');
  document.getElementById('role-dialog-text').textContent = word('page.role_question', name);
  const buttons = document.getElementById('role-buttons');
  buttons.textContent = '';
  return new Promise(resolve => {
    let chosen = null;
    for (const role of ['Q', 'K', 'V', 'scores', 'weights']) {
      const button = document.createElement('button');
      button.textContent = word('import.role.' + role.toLowerCase());
      button.dataset.role = role;
      button.onclick = () => { chosen = role; dialog.close(); };
      buttons.appendChild(button);
    }
    document.getElementById('role-dialog-cancel').onclick = () => dialog.close();
    dialog.addEventListener('close', () => resolve(chosen), { once: true });
    dialog.showModal();
  });
}

async function openDropped(files) {
  if (files.length === 1 && await isSessionFile(files[0])) return openSessionFile(files[0]);
  return importFiles(files);
}

// ─── Exports: a zip streamed from the export worker, a piece at a time ──────────────────────────
// The export runs in a Web Worker of its own (export-worker.js, the same program): the page keeps
// drawing at its full rate, whatever a lab costs at L = 4096. Where the pieces go: into Blobs of
// ~1 MB (the browser keeps them, not this page's memory) that become one download, or straight to
// a file the student picked.
function blobSink(name) {
  const parts = [];
  return {
    name,
    write(bytes) { parts.push(new Blob([bytes])); },
    async finish() { offerBlob(new Blob(parts, { type: 'application/zip' }), name); return name; },
    async abort() { parts.length = 0; },
  };
}

function fileSink(writable, name) {
  let failure = null, chain = Promise.resolve();
  return {
    name,
    write(bytes) { chain = chain.then(() => writable.write(bytes)).catch(error => { failure = failure || error; }); },
    async finish() { await chain; if (failure) throw failure; await writable.close(); return name; },
    async abort() { try { await chain; await writable.abort(); } catch (e) { /* gone already */ } },
  };
}

function smlabExportProgress(fraction, stage) {
  document.getElementById('progress-bar').value = fraction;
  document.getElementById('progress-text').textContent =
      word('page.export_progress', page.exporting ? page.exporting.label : '', stage, Math.floor(fraction * 100));
}

async function smlabExportDone(files, error) {
  const exporting = page.exporting;
  page.exporting = null;
  document.getElementById('progress').hidden = true;
  for (const id of ['export-csv', 'export-svg']) document.getElementById(id).disabled = false;
  if (!exporting) return;
  if (error) {
    await exporting.sink.abort();
    if (error.includes('cancelled')) smlabShowStatus(word('page.export_cancelled'));
    else smlabShowError('softmax-lab: ' + word('page.zip_failed', error));
    return;
  }
  try {
    const name = await exporting.sink.finish();
    smlabShowStatus(word('page.export_done', name, files, sizeText(exporting.bytes)));
  } catch (e) {
    smlabShowError('softmax-lab: ' + word('page.zip_failed', e.message || e));
  }
  document.body.dataset.exports = String(Number(document.body.dataset.exports || 0) + 1);
}

function exportWorker() {
  if (page.worker) return page.worker;
  page.worker = new Worker('export-worker.js');
  page.worker.onmessage = event => {
    const message = event.data;
    if (!page.exporting) return;
    if (message.type === 'bytes') {
      page.exporting.bytes += message.bytes.length;
      page.exporting.sink.write(message.bytes);
    } else if (message.type === 'progress') {
      smlabExportProgress(message.fraction, message.stage);
    } else if (message.type === 'done') {
      document.body.dataset.workerHeap = String(message.heap);
      smlabExportDone(message.files, message.error);
    }
  };
  page.worker.onerror = event => {
    page.worker = null;
    smlabExportDone(0, String(event.message || 'the export worker stopped'));
  };
  return page.worker;
}

function cancelExport() {
  if (!page.exporting) return;
  if (page.worker) page.worker.terminate();  // ends the job at once; its pieces are dropped
  page.worker = null;
  smlabExportDone(0, 'export cancelled: nothing was changed');
}

// The shown session and the imported files it names, to the worker.
function beginExport(kind, whole, sink) {
  const session = call('smlab_session_json', 'string', [], []);
  const imported = JSON.parse(session).import;
  const files = [];
  if (imported)
    for (const path of [...(imported.files || []), ...(imported.tokens ? [imported.tokens] : [])]) {
      const file = path.split(':')[0];
      try { files.push({ path: file, bytes: Module.FS.readFile(file) }); } catch (e) { /* the session says so */ }
    }
  page.exporting = { kind, label: kind.toUpperCase(), sink, bytes: 0 };
  exportWorker().postMessage({ session, kind, whole, files,
                               command: call('smlab_export_command', 'string', ['string'], [kind]) });
  for (const id of ['export-csv', 'export-svg']) document.getElementById(id).disabled = true;
  document.getElementById('progress').hidden = false;
  smlabExportProgress(0, '');
}

function zipName(kind, whole) {
  const view = new URLSearchParams(location.search).get('view') || 'dashboard';
  return 'softmax-lab-' + view + '-' + kind + (whole ? '' : '-subset') + '.zip';
}

// Export CSV / SVG: the whole in memory up to WHOLE_EXPORT_LIMIT, else a choice: the subset, or the
// whole streamed to a picked file where the browser can, and the desktop command for the whole.
function startExport(kind) {
  if (page.exporting) return;
  const offer = JSON.parse(call('smlab_export_offer', 'string', [], []));
  if (kind !== 'csv' || offer.bytes <= page.wholeExportLimit) {
    beginExport(kind, true, blobSink(zipName(kind, true)));
    return;
  }
  const dialog = document.getElementById('export-dialog');
  const megabytes = bytes => Math.max(1, Math.round(bytes / 1e6));
  document.getElementById('export-dialog-text').textContent =
      word('page.export_too_large', offer.seq_len, megabytes(offer.bytes), megabytes(page.wholeExportLimit));
  document.getElementById('export-dialog-desktop').textContent = word('page.export_desktop', '').trim();
  document.getElementById('export-dialog-code').textContent = call('smlab_export_command', 'string', ['string'], [kind]);
  const subset = document.getElementById('export-subset');
  subset.textContent = word('page.export_subset', offer.seq_len, offer.side, megabytes(offer.subset_bytes));
  subset.onclick = () => { dialog.close(); beginExport(kind, false, blobSink(zipName(kind, false))); };
  const whole = document.getElementById('export-whole-file');
  whole.hidden = typeof window.showSaveFilePicker !== 'function';
  whole.textContent = word('page.export_whole_file');
  whole.onclick = async () => {
    dialog.close();
    try {
      const handle = await window.showSaveFilePicker({
        suggestedName: zipName(kind, true), types: [{ description: 'zip', accept: { 'application/zip': ['.zip'] } }] });
      beginExport(kind, true, fileSink(await handle.createWritable(), handle.name || zipName(kind, true)));
    } catch (error) {
      if (!error || error.name !== 'AbortError') smlabShowError('softmax-lab: ' + (error.message || error));
    }
  };
  document.getElementById('export-dialog-cancel').onclick = () => dialog.close();
  dialog.showModal();
}

// ─── Touch: one path into GLFW's mouse (library_page.js), pinch for the font size ──────────────
// One finger is the mouse: it moves there, then presses a frame later (ImGui sees where it hovers
// first), and releases a frame after the press at the soonest, so a quick tap is one click; a frame
// after the release the pointer leaves the canvas (a finger does not hover: no tooltip stays). Two
// fingers scroll (their midpoint, as a wheel) and pinch (the font scale in quarter steps).
const touch = { queue: [], pumping: false, fingers: 0, pinch: null, down: false, used: false };

function pumpTouch() {
  touch.pumping = false;
  Module.smlabInputSeen = 1;
  while (touch.queue.length > 0) {
    const event = touch.queue.shift();
    Module.smlabPointer(event.kind === 'away' ? 'move' : event.kind, event.x, event.y);
    if (event.kind === 'down' || event.kind === 'up') break;  // one press or release a frame
  }
  if (touch.queue.length > 0) scheduleTouch();
}

function scheduleTouch() {
  if (!touch.pumping) { touch.pumping = true; requestAnimationFrame(pumpTouch); }
}

function queueTouch(kind, x, y) {
  if (kind === 'move' && touch.queue.length === 0) { Module.smlabPointer('move', x, y); return; }
  touch.queue.push({ kind, x, y });
  scheduleTouch();
}

function pinchState(touches) {
  const [a, b] = [touches[0], touches[1]];
  return { distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY),
           x: (a.clientX + b.clientX) / 2, y: (a.clientY + b.clientY) / 2 };
}

function onTouch(event) {
  const canvas = document.getElementById('canvas');
  if (!page.app || !Module.smlabPointer) return;
  const onCanvas = [...event.changedTouches].some(t => t.target === canvas) || touch.fingers > 0;
  if (!onCanvas) return;
  event.preventDefault();
  event.stopPropagation();  // emscripten's GLFW would press the button at the old position
  touch.used = true;
  const touches = event.touches;
  if (event.type === 'touchstart' && touches.length === 1) {
    touch.fingers = 1;
    const t = touches[0];
    queueTouch('move', t.clientX, t.clientY);
    queueTouch('down', t.clientX, t.clientY);
    touch.down = true;
  } else if (touches.length >= 2) {
    if (touch.down) {  // a second finger: the first one's press ends where it is
      const t = touches[0];
      queueTouch('up', t.clientX, t.clientY);
      touch.down = false;
    }
    touch.fingers = 2;
    const now = pinchState(touches);
    if (!touch.pinch || event.type === 'touchstart') { touch.pinch = { ...now, base: now.distance }; return; }
    Module.smlabWheel(touch.pinch.x - now.x, touch.pinch.y - now.y, now.x, now.y);
    const ratio = now.distance / Math.max(touch.pinch.base, 1);
    if (ratio > 1.2 || ratio < 1 / 1.2) {
      call('smlab_font_scale_step', null, ['number'], [ratio > 1 ? 1 : -1]);
      touch.pinch.base = now.distance;
    }
    touch.pinch.x = now.x;
    touch.pinch.y = now.y;
  } else if (event.type === 'touchmove' && touches.length === 1 && touch.down) {
    queueTouch('move', touches[0].clientX, touches[0].clientY);
  } else if (touches.length === 0) {
    const t = event.changedTouches[0];
    if (touch.down) {
      queueTouch('up', t.clientX, t.clientY);
      // A tap on a field that already had the keys (a predict step opens with its field active):
      // once the tap is through, the real input takes the focus for the phone's keyboard.
      const later = frames => requestAnimationFrame(() => (frames > 0 ? later(frames - 1)
                                                                        : page.textField && focusTextEntry()));
      later(4);
    }
    // After a tap and after a pinch alike (whose scroll moved the pointer to its midpoint): no
    // finger hovers, so no tooltip stays where the fingers were.
    queueTouch('away', -10000, -10000);
    touch.down = false;
    touch.fingers = 0;
    touch.pinch = null;
  }
}

for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel'])
  window.addEventListener(type, onTouch, { capture: true, passive: false });
// Whether a finger is in use, however its press reaches the app (touch events, or the pointer
// events a browser may send for them instead).
window.addEventListener('touchstart', () => { touch.used = true; }, { capture: true, passive: true });
window.addEventListener('pointerdown', event => { if (event.pointerType === 'touch') touch.used = true; },
                        { capture: true, passive: true });

// ─── Typing on a touch screen ───────────────────────────────────────────────────────────────────
// A phone opens its keyboard only for a focused text input: when one of the app's text fields
// takes the keys (a guess, custom scores) after a touch, the page focuses #text-entry, and what is
// typed there goes to the app as characters, Backspace and Enter; the input itself stays a single
// space (so a virtual keyboard's Backspace has something to delete).
function focusTextEntry() {
  const entry = document.getElementById('text-entry');
  if (document.activeElement === entry) return;
  entry.value = ' ';
  entry.focus({ preventScroll: true });
  document.body.dataset.textEntry = '1';
}

function smlabTextEntry(on) {
  const entry = document.getElementById('text-entry');
  page.textField = !!on;
  if (on) {
    if (touch.used) focusTextEntry();  // else a keyboard is at hand: its keys reach the canvas as they do
  } else {
    delete document.body.dataset.textEntry;
    if (document.activeElement === entry) Module.canvas.focus({ preventScroll: true });
  }
}

document.getElementById('text-entry').addEventListener('beforeinput', event => {
  Module.smlabInputSeen = 1;
  if (event.inputType === 'deleteContentBackward') Module.smlabKey(8);
  else if (event.inputType === 'insertLineBreak' || event.inputType === 'insertParagraph') Module.smlabKey(13);
  else if (event.data) for (const character of event.data) Module.smlabTypeChar(character.codePointAt(0));
  if (event.cancelable) event.preventDefault();
});
document.getElementById('text-entry').addEventListener('input', event => { event.target.value = ' '; });

// ─── Drag and drop ──────────────────────────────────────────────────────────────────────────────
function dropHint(shown) {
  const hint = document.getElementById('drop-hint');
  hint.textContent = word('page.drop_hint');
  hint.hidden = !shown;
}

window.addEventListener('dragover', event => {
  if (!event.dataTransfer || ![...event.dataTransfer.types].includes('Files')) return;
  event.preventDefault();
  event.stopPropagation();
  event.dataTransfer.dropEffect = 'copy';
  dropHint(true);
}, true);
window.addEventListener('dragleave', event => { if (!event.relatedTarget) dropHint(false); }, true);
window.addEventListener('drop', event => {
  dropHint(false);
  if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
  event.preventDefault();
  event.stopPropagation();  // emscripten's GLFW would write them to its own folder
  if (page.app) openDropped([...event.dataTransfer.files]);
}, true);

// ─── What the C++ side calls every so often ─────────────────────────────────────────────────────
// The address follows the shown state; while something animates at most every `throttle` ms. A
// new view or lesson step (`push`) is a new entry in the browser's history, written at once; any
// other change rewrites the entry shown.
function smlabSetAddress(query, throttle, push) {
  const write = () => {
    page.address.timer = 0;
    page.address.last = performance.now();
    if (page.address.pending !== null) history.replaceState(null, document.title, page.address.pending);
    page.address.pending = null;
  };
  if (push) {
    clearTimeout(page.address.timer);
    page.address.timer = 0;
    page.address.pending = null;
    page.address.last = performance.now();
    history.pushState(null, document.title, query);
    page.address.written = query;
    return;
  }
  page.address.pending = query;
  if (page.address.timer) return;
  const wait = throttle - (performance.now() - page.address.last);
  if (wait <= 0) write();
  else page.address.timer = setTimeout(write, wait);
}

// Back and Forward: the entry's address is applied as at start (the same checks), in place.
window.addEventListener('popstate', () => {
  if (!page.app || location.search === page.address.written) return;
  clearTimeout(page.address.timer);  // a rewrite still due belongs to the entry left
  page.address.timer = 0;
  page.address.pending = null;
  const pairs = [];
  for (const [name, value] of new URLSearchParams(location.search)) pairs.push(name, value);
  call('smlab_apply_address', null, ['string'], [JSON.stringify(pairs)]);
});

// The page's words and <html lang> follow the app's language.
function smlabSetWords(code, json) {
  page.words = JSON.parse(json);
  document.documentElement.lang = code;
  barWords();
  for (const element of document.querySelectorAll('[data-title]')) element.title = word(element.dataset.title);
  if (classroom.on) classRender(true);  // the question and its words in the new language
}

// On a phone the bar's buttons say their short words (data-short: "Save", "CSV"), so every one
// fits across the screen; a screen reader still hears the whole name.
const narrowBar = window.matchMedia('(max-width: 599px)');
function barWords() {
  if (Object.keys(page.words).length === 0) return;  // not loaded yet: the HTML's own words stay
  for (const element of document.querySelectorAll('[data-word]')) {
    const short = narrowBar.matches && element.dataset.short;
    element.textContent = word(short || element.dataset.word);
    if (short) element.setAttribute('aria-label', word(element.dataset.word));
    else element.removeAttribute('aria-label');
  }
}
narrowBar.addEventListener('change', barWords);

// The text of what the canvas shows, for a screen reader, Ctrl+F and copying.
function smlabMirror(json) {
  const mirror = JSON.parse(json);
  const set = (id, text) => {
    const element = document.getElementById(id);
    if (element.textContent !== text) element.textContent = text;
  };
  set('mirror-lesson', mirror.lesson);
  set('mirror-readout', mirror.readout);
  set('mirror-view', mirror.view);
  set('mirror-plot', mirror.plot);
}

function smlabFirstFrame() {
  document.body.dataset.firstFrame = String(performance.now());
  // After the first frame, so the worker's downloads never compete with the page's own.
  if ('serviceWorker' in navigator && location.protocol !== 'file:')
    navigator.serviceWorker.register('sw.js').then(registration => {
      const ready = () => { document.body.dataset.offline = '1'; smlabShowStatus(word('page.offline_ready')); };
      if (registration.active) document.body.dataset.offline = '1';
      else navigator.serviceWorker.ready.then(ready);
      watchForUpdate(registration);
    }).catch(error => console.warn('service worker: ' + error));
}

// A new build: its service worker installs beside the one serving this page and waits. The bar
// says so; on the student's word it takes over and the page reloads into the new build (the
// address and the browser's storage bring the state back). Never on its own: a reload in the
// middle of a lesson or an export would lose what is on screen.
function watchForUpdate(registration) {
  const offer = worker => {
    if (!navigator.serviceWorker.controller) return;  // the first visit: nothing to replace
    const button = document.getElementById('update');
    button.textContent = word('bar.update');
    button.title = word('page.update_ready');
    button.hidden = false;
    button.onclick = () => {
      page.reloadWhenReplaced = true;
      worker.postMessage('take-over');
    };
    smlabShowStatus(word('page.update_ready'));
    document.body.dataset.update = '1';
  };
  const follow = worker => {
    if (worker) worker.addEventListener('statechange', () => { if (worker.state === 'installed') offer(worker); });
  };
  if (registration.waiting) offer(registration.waiting);
  follow(registration.installing);  // the browser's own update check may have begun before this page asked
  registration.addEventListener('updatefound', () => follow(registration.installing));
}

if ('serviceWorker' in navigator)
  navigator.serviceWorker.addEventListener('controllerchange', () => { if (page.reloadWhenReplaced) location.reload(); });

// Two WebGL queries Dear ImGui's renderer makes every frame (it saves the state it changes) are not
// answered from the browser's copy of the state: the scissor box and the blend functions. Each
// made the page wait for the GPU process to finish drawing the previous frame: 36 ms a frame in
// SwiftShader (getParameter was 86 % of the page's time during a drag at L = 256). Every change of
// them goes through these setters, so a copy kept here answers exactly (read once, at the start).
function keepGlStateHere(gl) {
  const SCISSOR_BOX = 0x0C10, BLEND_DST_RGB = 0x80C8, BLEND_SRC_RGB = 0x80C9, BLEND_DST_ALPHA = 0x80CA,
        BLEND_SRC_ALPHA = 0x80CB, BLEND_EQUATION_RGB = 0x8009, BLEND_EQUATION_ALPHA = 0x883D;
  const kept = new Map();
  for (const name of [SCISSOR_BOX, BLEND_DST_RGB, BLEND_SRC_RGB, BLEND_DST_ALPHA, BLEND_SRC_ALPHA,
                      BLEND_EQUATION_RGB, BLEND_EQUATION_ALPHA])
    kept.set(name, gl.getParameter(name));
  const real = {};
  for (const name of ['getParameter', 'scissor', 'blendFunc', 'blendFuncSeparate', 'blendEquation',
                      'blendEquationSeparate'])
    real[name] = gl[name].bind(gl);
  gl.getParameter = name => {
    if (!kept.has(name)) return real.getParameter(name);
    const value = kept.get(name);
    return name === SCISSOR_BOX ? new Int32Array(value) : value;
  };
  gl.scissor = (x, y, width, height) => {
    real.scissor(x, y, width, height);
    if (width >= 0 && height >= 0) kept.set(SCISSOR_BOX, new Int32Array([x, y, width, height]));
  };
  gl.blendFuncSeparate = (sourceRgb, destinationRgb, sourceAlpha, destinationAlpha) => {
    real.blendFuncSeparate(sourceRgb, destinationRgb, sourceAlpha, destinationAlpha);
    kept.set(BLEND_SRC_RGB, sourceRgb).set(BLEND_DST_RGB, destinationRgb)
        .set(BLEND_SRC_ALPHA, sourceAlpha).set(BLEND_DST_ALPHA, destinationAlpha);
  };
  gl.blendFunc = (source, destination) => {
    real.blendFunc(source, destination);
    kept.set(BLEND_SRC_RGB, source).set(BLEND_DST_RGB, destination)
        .set(BLEND_SRC_ALPHA, source).set(BLEND_DST_ALPHA, destination);
  };
  gl.blendEquationSeparate = (rgb, alpha) => {
    real.blendEquationSeparate(rgb, alpha);
    kept.set(BLEND_EQUATION_RGB, rgb).set(BLEND_EQUATION_ALPHA, alpha);
  };
  gl.blendEquation = mode => {
    real.blendEquation(mode);
    kept.set(BLEND_EQUATION_RGB, mode).set(BLEND_EQUATION_ALPHA, mode);
  };
}

function smlabStarted(app) {
  page.app = app;
  if (Module.ctx) keepGlStateHere(Module.ctx);
  for (const id of ['save-session', 'open-session', 'import-data', 'export-csv', 'export-svg'])
    document.getElementById(id).disabled = false;
  smlabShowStatus('');
  document.body.dataset.ready = '1';
  document.getElementById('canvas').focus();
  if (classroom.on) classStart();
}

// ─── The class ──────────────────────────────────────────────────────────────────────────────────
// A student's page in a class the teacher's app hosts (app/classroom/, docs/ARCHITECTURE.md
// "Hosting a class"): one WebSocket to the teacher's app, which sends the teacher's state as the
// address's settings; the page applies them through the address's own checks (smlab_class_apply),
// replacing the history entry (Back and Forward stay the student's). The student may explore on their
// own copy (the app then says it no longer follows, web_main.cpp) and follow again with one tap. On a
// question the answer is the app's guess, held unrevealed (from the canvas or the form here: one
// path); the teacher's app keeps it and reveals. A reload or a dropped connection rejoins as the same
// student (a token kept for the tab) and gets the current step back.
const classroom = {
  on: CLASS_PAGE,
  code: '',
  nick: '',
  socket: null,
  timer: 0,
  retry: 0,
  stopped: false,     // the class is full or the code wrong: no more tries
  joined: false,
  state: null,        // the teacher's last state message
  following: true,    // as the app says (smlabClassFollowing)
  answer: '',         // the app's answer, NAME:STEP:GUESS (smlabClassAnswered)
  kept: null,         // what the teacher's app kept: {vote, answer}
  refusal: null,      // why the last answer was not kept: {why, message}
  position: '',       // the question last seen (NAME:STEP) ...
  vote: 0,            // ... and its vote
  formKey: '',        // what the answer form was built for
  applyPending: false,
};

function tabStorage(key, value) {
  try {
    if (value === undefined) return sessionStorage.getItem(key) || '';
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch (e) { /* storage off: the tab forgets on reload */ }
  return '';
}

function classStatus(text) { document.getElementById('class-status').textContent = text; }

function classStart() {
  document.body.classList.add('class-mode');
  const panel = document.getElementById('class');
  panel.hidden = false;
  // The canvas gives the panel the room it takes.
  const fit = () => document.body.style.setProperty('--class-height', panel.offsetHeight + 'px');
  new ResizeObserver(fit).observe(panel);
  fit();
  const code = (new URLSearchParams(location.search).get('code') || tabStorage('softmax-lab-class-code')).trim()
                   .toUpperCase();
  if (!/^[A-HJ-NP-Z2-9]{6}$/.test(code)) return classShowJoin('', '');
  classroom.code = code;
  // A first visit (the QR code's address) offers the optional nickname before joining, the code
  // filled in: one tap on Join. A student who joined from this tab (a reload, a reconnect) rejoins
  // at once, as the same student.
  if (!tabStorage('softmax-lab-class-token')) return classShowJoin('', code);
  classConnect();
}

function classShowJoin(problem, code) {
  const form = document.getElementById('class-join');
  form.hidden = false;
  classStatus(problem);
  document.getElementById('class-code').value = code;
  document.getElementById(code ? 'class-nick' : 'class-code').focus();
}

document.getElementById('class-join').onsubmit = event => {
  event.preventDefault();
  classroom.code = document.getElementById('class-code').value.trim().toUpperCase();
  classroom.nick = document.getElementById('class-nick').value.trim();
  classroom.stopped = false;
  document.getElementById('class-join').hidden = true;
  classConnect();
};

function classConnect() {
  clearTimeout(classroom.timer);
  classroom.timer = 0;
  if (classroom.socket || classroom.stopped) return;
  classStatus(word(classroom.retry > 0 ? 'page.class_reconnecting' : 'page.class_connecting'));
  const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/class/ws');
  classroom.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ t: 'join', code: classroom.code,
                                                     token: tabStorage('softmax-lab-class-token'),
                                                     nick: classroom.nick }));
  socket.onmessage = event => classMessage(event.data);
  socket.onclose = () => {
    if (classroom.socket !== socket) return;
    classroom.socket = null;
    classroom.joined = false;
    document.body.dataset.classJoined = '0';
    if (classroom.stopped) return;
    classStatus(word('page.class_reconnecting'));
    classroom.timer = setTimeout(classConnect, Math.min(5000, 500 * 2 ** classroom.retry++));
  };
}

// A phone that was locked comes back: rejoin at once rather than at the next try.
document.addEventListener('visibilitychange', () => {
  if (classroom.on && document.visibilityState === 'visible' && !classroom.socket && classroom.code) classConnect();
});

function classSend(message) {
  if (classroom.socket && classroom.joined) classroom.socket.send(JSON.stringify(message));
}

function classMessage(text) {
  let message = null;
  try { message = JSON.parse(text); } catch (e) { return; }
  if (message.t === 'welcome') {
    classroom.retry = 0;
    classroom.joined = true;
    document.body.dataset.classJoined = '1';
    tabStorage('softmax-lab-class-token', message.token);
    tabStorage('softmax-lab-class-code', classroom.code);
    classSendAnswer();  // an answer given while the connection was down
  } else if (message.t === 'full' || message.t === 'wrong_code') {
    classroom.stopped = true;
    if (message.t === 'full') {
      classStatus(word('page.class_full'));
    } else {
      tabStorage('softmax-lab-class-code', null);
      classShowJoin(word('page.class_wrong_code'), '');
    }
  } else if (message.t === 'state') {
    classroom.state = message;
    document.body.dataset.classSeq = String(message.seq);
    if (!classroom.applyPending) {
      classroom.applyPending = true;
      requestAnimationFrame(() => { classroom.applyPending = false; classApply(false); });
    }
  } else if (message.t === 'answer') {
    if (message.kept) {
      classroom.kept = { vote: message.vote, answer: message.answer };
      classroom.refusal = null;
      classRestoreKept();  // a reconnect: the answer the teacher has is the app's again
    } else {
      classroom.refusal = message;
    }
    classRender(false);
  }
}

// The teacher's imported data: each shared file fetched once (its name changes with its content)
// into the import folder, where the state's import= and tokens= find it; the files of data the
// teacher no longer shows are deleted. A file that cannot be fetched is not tried again: the state
// then applies without it, and the page says why in the address's own words.
const classData = { have: new Set(), failed: new Set(), loading: null };

async function classFetchData(files) {
  const FS = Module.FS;
  try { FS.mkdir(IMPORT_DIR); } catch (e) { /* there already */ }
  for (const name of files) {
    if (classData.have.has(name) || classData.failed.has(name)) continue;
    try {
      const response = await fetch('/class/data/' + encodeURIComponent(name) + '?code=' + classroom.code,
                                   { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      const bytes = new Uint8Array(await response.arrayBuffer());
      FS.writeFile(IMPORT_DIR + '/' + name, bytes);
      classData.have.add(name);
      // Token labels beyond Latin need the full Chinese font, in either language.
      if (name.endsWith('.json') && needsChineseFont(new TextDecoder().decode(bytes))) {
        await chineseFont.need();
        call('smlab_chinese_font_loaded', null, ['number', 'string'], [1, '']);
      }
    } catch (error) {
      console.warn('class data ' + name + ': ' + (error.message || error));
      classData.failed.add(name);
    }
  }
  for (const name of [...classData.have]) {
    if (files.includes(name)) continue;
    classData.have.delete(name);
    try { FS.unlink(IMPORT_DIR + '/' + name); } catch (e) { /* gone already */ }
  }
}

// The teacher's state into the app (newest first: one a frame at most); while the student explores,
// only when asked (Follow the teacher).
function classApply(force) {
  const state = classroom.state;
  if (!state || !page.app) return;
  const files = state.data ? state.data.files : [];
  if (files.some(name => !classData.have.has(name) && !classData.failed.has(name))) {
    if (!classData.loading) {
      classStatus(word('page.class_data_loading', sizeText(state.data.bytes)));
      classData.loading = classFetchData(files).finally(() => {
        classData.loading = null;
        classApply(force);  // the newest state by then
      });
    }
    return;
  }
  const asked = state.question;
  // The second vote on the same question: the student answers afresh.
  if (asked && asked.position === classroom.position && asked.vote > classroom.vote) {
    call('smlab_class_answer', 'string', ['string'], ['']);
    classroom.kept = null;
  }
  classroom.position = asked ? asked.position : '';
  classroom.vote = asked ? asked.vote : 0;
  if (classroom.following || force) {
    const pairs = [];
    for (const [name, value] of new URLSearchParams(state.query)) pairs.push(name, value);
    call('smlab_class_apply', null, ['string', 'string', 'number'], [JSON.stringify(pairs), state.revealed || '',
                                                                    force ? 1 : 0]);
    classRestoreKept();
  }
  document.body.dataset.classApplied = String(state.seq);
  classRender(false);
}

// The answer the teacher's app kept for this question and vote, back in the app when it has
// another (a reload, a reconnect: the page starts without one).
function classRestoreKept() {
  const asked = classroom.state && classroom.state.question;
  const kept = classroom.kept;
  if (!asked || !kept || kept.vote !== asked.vote || !kept.answer.startsWith(asked.position + ':')) return;
  if (kept.answer !== classroom.answer) call('smlab_class_answer', 'string', ['string'], [kept.answer.split(':').pop()]);
}

document.getElementById('class-follow').onclick = () => {
  classroom.following = true;
  classApply(true);
};

// The app says whether the page still shows the teacher's state.
function smlabClassFollowing(following) {
  classroom.following = !!following;
  document.body.dataset.classFollowing = following ? '1' : '0';
  classRender(false);
}

// The app's answer on the step changed (NAME:STEP:GUESS, or "" for none): to the teacher's app while
// answering is open; while it is closed the kept answer comes back.
function smlabClassAnswered(answer) {
  classroom.answer = answer;
  const asked = classroom.state && classroom.state.question;
  if (answer && asked && answer.startsWith(asked.position + ':') && !asked.open) {
    classroom.refusal = { why: 'closed' };
    const kept = classroom.kept && classroom.kept.vote === asked.vote ? classroom.kept.answer.split(':').pop() : '';
    call('smlab_class_answer', 'string', ['string'], [kept]);
  } else {
    classSendAnswer();
  }
  classRender(false);
}

function classSendAnswer() {
  const asked = classroom.state && classroom.state.question;
  const answer = classroom.answer;
  if (!answer || !asked || !asked.open || !answer.startsWith(asked.position + ':')) return;
  if (classroom.kept && classroom.kept.vote === asked.vote && classroom.kept.answer === answer) return;
  classSend({ t: 'answer', vote: asked.vote, answer });
}

function classAnswer(text) {
  const refused = call('smlab_class_answer', 'string', ['string'], [text]);
  classroom.refusal = refused ? { why: 'invalid', message: refused } : null;
  classRender(false);
}

document.getElementById('class-answer').onsubmit = event => {
  event.preventDefault();
  classAnswer(document.getElementById('class-number').value);
};

// The panel: following or not, the question with its answer controls, the class's answers.
function classRender(rebuild) {
  if (!classroom.on || !page.app) return;
  const state = classroom.state;
  if (classroom.joined && !classData.loading)
    classStatus(word(classroom.following ? 'page.class_following' : 'page.class_exploring') +
                (state && state.data_withheld ? ' ' + word('page.class_data_withheld', sizeText(state.data_withheld)) : ''));
  document.getElementById('class-follow').hidden = classroom.following || !state;
  const asked = state && state.question;
  const question = asked ? JSON.parse(call('smlab_class_question', 'string', [], [])) : null;
  const form = document.getElementById('class-answer');
  const shown = question && question.position === asked.position;
  form.hidden = !shown;
  if (shown) {
    const key = [question.position, asked.vote, document.documentElement.lang].join('|');
    const closed = !asked.open || question.revealed;
    if (rebuild || key !== classroom.formKey) {
      classroom.formKey = key;
      document.getElementById('class-question').textContent = question.question;
      const choices = document.getElementById('class-choices');
      choices.textContent = '';
      for (const choice of question.choices) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = choice.text;
        button.dataset.value = choice.value;
        button.onclick = () => classAnswer(choice.value);
        choices.appendChild(button);
      }
      choices.hidden = question.choices.length === 0;
      document.getElementById('class-typed').hidden = question.choices.length > 0;
      document.getElementById('class-range').textContent =
          question.choices.length > 0 ? '' : word('page.class_range', question.min, question.max);
      document.getElementById('class-number').value = question.answer || '';
    }
    for (const button of document.querySelectorAll('#class-choices button')) {
      button.setAttribute('aria-pressed', button.dataset.value === question.answer ? 'true' : 'false');
      button.disabled = closed;
    }
    document.getElementById('class-number').disabled = closed;
    document.getElementById('class-send').disabled = closed;
    const kept = classroom.kept && classroom.kept.vote === asked.vote ? classroom.kept.answer.split(':').pop() : '';
    let line = kept ? word('page.class_answer_kept', asked.vote, kept) : word('page.class_answer_none');
    if (!asked.open && !question.revealed)
      line = kept ? word('page.class_answer_closed_yours', kept) : word('page.class_answer_closed');
    if (classroom.refusal && classroom.refusal.why === 'invalid') line = word('page.class_answer_refused',
                                                                              classroom.refusal.message || '');
    if (question.revealed && state.truth)
      line = kept ? word('page.class_truth_yours', state.truth, kept) : word('page.class_truth', state.truth);
    document.getElementById('class-state').textContent = line;
    form.dataset.kept = kept;
  }
  // The class's answers, when the teacher shows them: one histogram per vote, the true one marked.
  const tallies = document.getElementById('class-tallies');
  const shownTallies = state && state.tallies && shown ? state.tallies : [];
  tallies.hidden = shownTallies.length === 0;
  tallies.textContent = '';
  for (const tally of shownTallies) {
    const block = document.createElement('div');
    block.className = 'class-tally';
    const title = document.createElement('p');
    title.textContent = word('page.class_vote', tally.vote);
    block.appendChild(title);
    const most = Math.max(1, ...tally.counts);
    tally.labels.forEach((label, index) => {
      const row = document.createElement('div');
      row.className = 'class-row' + (tally.truth === index ? ' truth' : '');
      const name = document.createElement('span');
      name.textContent = label;
      const bar = document.createElement('span');
      bar.className = 'class-bar';
      bar.style.width = (8 * tally.counts[index] / most) + 'em';
      const count = document.createElement('span');
      count.textContent = String(tally.counts[index]) + (tally.truth === index ? ' ✓' : '');
      row.append(name, bar, count);
      block.appendChild(row);
    });
    tallies.appendChild(block);
  }
}

// ─── The emscripten module ──────────────────────────────────────────────────────────────────────
// The canvas's WebGL 2 context, made before GLFW asks for it (a later getContext('webgl2') of the
// same canvas returns this one), for what GLFW cannot ask: a drawing buffer kept between frames.
// With it a frame repaints only what changed, in place (docs/ARCHITECTURE.md, "Partial redraw"):
// in SwiftShader, copying a kept frame of the whole canvas cost a vsync in three.
// Made once the runtime's downloads are under way (its first run dependency), and before main at
// the latest: making it takes SwiftShader 0.5-0.8 s, which, made as this script ran, held back the
// start of the downloads by as much (docs/PERFORMANCE.md, "First frame").
let canvasContextMade = false;
function makeCanvasContext() {
  if (canvasContextMade) return;
  canvasContextMade = true;
  document.getElementById('canvas').getContext('webgl2', {alpha: false, depth: false, stencil: false,
                                                          antialias: false, preserveDrawingBuffer: true});
}
var Module = {
  monitorRunDependencies: () => { if (!canvasContextMade) setTimeout(makeCanvasContext, 0); },
  canvas: document.getElementById('canvas'),
  arguments: urlArguments,
  print: text => console.log(text),
  printErr: text => console.warn(text),
  setStatus: text => { if (!page.app) smlabShowStatus(text || ''); },
  // Before main: the imported files kept in IndexedDB back in the file system, and the Chinese
  // font fetched when the page starts in Chinese or the kept tokens need it (chineseFont writes it
  // once the runtime is up).
  preRun: [() => {
    makeCanvasContext();
    Module.addRunDependency('smlab-storage');
    restoreImports()
      .catch(error => { console.warn('kept imports: ' + error); return false; })
      .then(tokensNeedFont => (startsInChinese() || tokensNeedFont) ? chineseFont.fetch() : null)
      .catch(error => console.warn('Chinese font: ' + error))
      .finally(() => Module.removeRunDependency('smlab-storage'));
  }],
  onRuntimeInitialized: () => chineseFont.runtimeReady(),
};

// ─── Keys: the app's, the page's and the browser's ──────────────────────────────────────────────
// Registered before emscripten's GLFW listens on the window (capture), so this decides first.
// - Keys the app uses (Ctrl+S saves the session, Ctrl+O opens one, Ctrl+Q, Ctrl+=/−, undo/redo)
//   are not the browser's here; F11 stays the browser's full screen.
// - The keys that scroll a page (PageUp/PageDown, the arrows, Space, Home/End) step lessons, move
//   sliders and start the sweep in the app: they never scroll the page under the canvas (a
//   clicker sends PageDown). Reading the text below the canvas (focus there) they scroll as usual.
// - Tab is the browser's: it moves focus between the canvas, the bar and the text; GLFW would
//   swallow it (preventDefault) and trap focus in the canvas.
// - A text field, the export dialog, or a focused button's own Enter/Space: that element's alone.
const SCROLLING_KEYS = new Set(['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', ' ',
                                'Spacebar', 'Home', 'End']);

function keysOwnedBy(target, event) {
  if (!(target instanceof Element) || target === Module.canvas) return false;
  if (target.closest('dialog[open], #mirror') || target.matches('input, textarea, select, [contenteditable]'))
    return !target.matches('#text-entry');  // the phone's text entry types into the app
  if (target.matches('button, a')) return event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar';
  return false;
}

// Once Tab is used, the canvas shows its focus ring and, focused, hands the keys to Dear ImGui's
// own keyboard navigation; the next pointer press ends both (a ring after a click on the canvas
// would only cover the picture, and the arrows and Space go back to the app's shortcuts).
function keyboardNavigation() {
  const on = document.body.classList.contains('keys') && document.activeElement === Module.canvas;
  if (page.app && on !== page.keyboardNavigation) {
    page.keyboardNavigation = on;
    call('smlab_keyboard_navigation', null, ['number'], [on ? 1 : 0]);
  }
}
window.addEventListener('keydown', event => {
  if (event.key === 'Tab') document.body.classList.add('keys');
}, true);
for (const type of ['pointerdown', 'touchstart'])
  window.addEventListener(type, () => { document.body.classList.remove('keys'); keyboardNavigation(); },
                          { capture: true, passive: true });
document.addEventListener('focusin', () => keyboardNavigation());

for (const type of ['keydown', 'keypress', 'keyup'])
  window.addEventListener(type, event => {
    const typed = type === 'keypress' && event.target instanceof Element && event.target.id === 'text-entry';
    if (event.key === 'Tab' || typed || keysOwnedBy(event.target, event)) {
      event.stopImmediatePropagation();  // not the app's: GLFW does not see it
      return;
    }
    if (type !== 'keydown') return;
    const modified = event.ctrlKey || event.metaKey;
    if (modified && ['s', 'o', 'q', '=', '-', 'z', 'y'].includes(event.key.toLowerCase())) event.preventDefault();
    if (!modified && !event.altKey && SCROLLING_KEYS.has(event.key)) {
      event.preventDefault();
      // A prevented keydown brings no keypress: a space typed into the app's text field comes here.
      if ((event.key === ' ' || event.key === 'Spacebar') && Module.smlabTypeChar) Module.smlabTypeChar(32);
    }
  }, true);

document.getElementById('save-session').onclick = () => smlabSaveSession();
document.getElementById('open-session').onclick = () => smlabOpenSession();
document.getElementById('import-data').onclick = () => smlabImportFiles();
document.getElementById('session-file').onchange = event => {
  const file = event.target.files[0];
  event.target.value = '';
  if (file) openSessionFile(file);
};
document.getElementById('import-file').onchange = event => {
  const files = [...event.target.files];
  event.target.value = '';
  if (files.length > 0) openDropped(files);
};
document.getElementById('export-csv').onclick = () => startExport('csv');
document.getElementById('export-svg').onclick = () => startExport('svg');
document.getElementById('progress-cancel').onclick = () => cancelExport();
// "Text" and "↑" move focus and the view between the canvas and its text without a history entry
// (Back leaves neither the app nor the state for a #fragment).
document.getElementById('to-mirror').onclick = event => {
  event.preventDefault();
  const mirror = document.getElementById('mirror');
  mirror.scrollIntoView();
  mirror.focus({ preventScroll: true });
};
document.getElementById('to-canvas').onclick = event => {
  event.preventDefault();
  window.scrollTo(0, 0);
  Module.canvas.focus({ preventScroll: true });
};
