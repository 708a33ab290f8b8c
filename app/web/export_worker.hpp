// The page's exports in a Web Worker of their own: export-worker.js starts this same program with
// "--export-worker", and each export the page asks for (the shown session as JSON, CSV or SVG, whole
// or the subset) runs there to the end, its zip posted back a piece at a time, so the page keeps
// drawing at full speed and a lab that takes seconds at L = 4096 never holds a frame.
#pragma once

namespace smlab::web {

// The worker's main: loads the string tables and says it is ready (smlabWorkerReady); the exports
// come through smlab_worker_export. Returns 0 (the runtime stays alive for them).
int run_export_worker();

}  // namespace smlab::web
