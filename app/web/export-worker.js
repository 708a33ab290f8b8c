// The page's exports off its main thread (export_worker.hpp): this worker runs the page's own
// program (softmax-lab.js/.wasm/.data, already in the browser's cache) with "--export-worker", and
// for each {session, kind, whole, command, files} the page posts it writes the imported files into
// its file system and runs the export, posting back the zip in pieces of ~1 MB (transferred, not
// copied), progress, and the end: {type: 'done', files, error, heap}.
// Everything here lives in one object: the program's own globals share this worker's scope.
'use strict';
const smlabWorker = {
  pieceBytes: 1 << 20,
  piece: new Uint8Array(1 << 20),
  used: 0,
  ready: null,
  flush() {
    if (smlabWorker.used === 0) return;
    const piece = smlabWorker.piece.slice(0, smlabWorker.used);
    postMessage({ type: 'bytes', bytes: piece }, [piece.buffer]);
    smlabWorker.used = 0;
  },
};
smlabWorker.started = new Promise(resolve => { smlabWorker.ready = resolve; });

self.smlabWorkerReady = () => smlabWorker.ready();
self.smlabWorkerBytes = (pointer, length) => {
  const bytes = Module.HEAPU8.subarray(pointer, pointer + length);
  if (smlabWorker.used + length > smlabWorker.pieceBytes) smlabWorker.flush();
  if (length > smlabWorker.pieceBytes) {
    const piece = bytes.slice();
    postMessage({ type: 'bytes', bytes: piece }, [piece.buffer]);
    return;
  }
  smlabWorker.piece.set(bytes, smlabWorker.used);
  smlabWorker.used += length;
};
self.smlabWorkerProgress = (fraction, stage) => postMessage({ type: 'progress', fraction, stage });
self.smlabWorkerDone = (files, error) => {
  smlabWorker.flush();
  postMessage({ type: 'done', files, error, heap: Module.HEAPU8.length });
};

var Module = {
  arguments: ['--export-worker'],
  print: text => console.log(text),
  printErr: text => console.warn(text),
};
importScripts('softmax-lab.js');

onmessage = async event => {
  await smlabWorker.started;
  const job = event.data;
  for (const file of job.files) {
    const folder = file.path.substring(0, file.path.lastIndexOf('/'));
    try { Module.FS.mkdirTree(folder); } catch (e) { /* there already */ }
    Module.FS.writeFile(file.path, file.bytes);
  }
  Module.ccall('smlab_worker_export', null, ['string', 'string', 'number', 'string'],
               [job.session, job.kind, job.whole ? 1 : 0, job.command]);
};
