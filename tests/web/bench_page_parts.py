#!/usr/bin/python3
# Which part of the page's drawing costs its missed vsyncs: the same temperature drag as
# bench_page.py, at L = 1024, with a WebGL wrapper (installed before the page's own code runs) that
# leaves one kind of triangle out of every draw. A measurement, not a test. The wrapper's own work
# (it copies each uploaded buffer and rewrites each draw's indices in place) costs frames too, so
# "all" (every triangle drawn, through the same wrapper) is the baseline to compare against:
#   all        every triangle, through the wrapper
#   no-text    triangles whose three corners sample different texels (glyphs, the maps' quads)
#   no-solid   triangles that sample one texel (the font atlas's white pixel: fills, bars, lines)
#   no-fringe  triangles with a corner of alpha 0 (ImGui's anti-aliasing fringes)
#   nothing    every draw call skipped (the browser's own share, as the control page)
#   no-sample  every triangle, with a fragment shader that does not sample the texture (the
#              indices are not rewritten: less wrapper work on the page's thread, which a drag
#              that recomputes nothing shows is not the limit)
# Prints one JSON line per drag: the mode, the frames counted, how many intervals were over 25 ms
# and the median and p95 interval.
# Usage: bench_page_parts.py SITE_DIR [ROUNDS] [MODE ...]
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_page  # noqa: E402
import browser_test as page  # noqa: E402

MODES = ["all", "no-text", "no-solid", "no-fringe", "nothing", "no-sample"]

# ImGui's vertex: x, y, u, v (floats), then RGBA bytes (20 bytes; alpha at byte 19).
WRAPPER = r"""
const mode = %s;
const getContext = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (kind, attributes) {
  const gl = getContext.call(this, kind, attributes);
  if (!gl || kind !== 'webgl2' || gl.smlabWrapped) return gl;
  gl.smlabWrapped = true;
  let vertices = null, indices = null;
  const copy = (data, offset, length) => new Uint8Array(new Uint8Array(data.buffer,
      data.byteOffset + (offset || 0), length || data.byteLength - (offset || 0))).buffer;
  const bufferData = gl.bufferData.bind(gl), bufferSubData = gl.bufferSubData.bind(gl);
  gl.bufferData = function (target, data, usage, offset, length) {
    if (typeof data !== 'number' && data) {
      if (target === gl.ARRAY_BUFFER) vertices = copy(data, offset, length);
      if (target === gl.ELEMENT_ARRAY_BUFFER) indices = copy(data, offset, length);
    }
    return bufferData(...arguments);
  };
  gl.bufferSubData = function (target, at, data, offset, length) {
    if (at === 0 && target === gl.ARRAY_BUFFER) vertices = copy(data, offset, length);
    if (at === 0 && target === gl.ELEMENT_ARRAY_BUFFER) indices = copy(data, offset, length);
    return bufferSubData(...arguments);
  };
  const shaderSource = gl.shaderSource.bind(gl);
  gl.shaderSource = function (shader, source) {
    if (mode === 'no-sample')
      source = source.replace(/Out_Color = Frag_Color \* texture\(Texture, Frag_UV\.st\);/, 'Out_Color = Frag_Color;');
    return shaderSource(shader, source);
  };
  const drawElements = gl.drawElements.bind(gl);
  gl.drawElements = function (primitive, count, type, offset) {
    if (mode === 'nothing') return;
    if (mode !== 'no-sample' && vertices && indices) {
      const floats = new Float32Array(vertices), bytes = new Uint8Array(vertices);
      const wide = type !== gl.UNSIGNED_SHORT;
      const from = wide ? new Uint32Array(indices, offset, count) : new Uint16Array(indices, offset, count);
      const to = wide ? new Uint32Array(count) : new Uint16Array(count);
      for (let i = 0; i + 2 < count; i += 3) {
        const corners = [from[i], from[i + 1], from[i + 2]];
        const fringe = corners.some(k => bytes[k * 20 + 19] === 0);
        const one_texel = corners.every(k => floats[k * 5 + 2] === floats[corners[0] * 5 + 2] &&
                                             floats[k * 5 + 3] === floats[corners[0] * 5 + 3]);
        const kind = fringe ? 'fringe' : (one_texel ? 'solid' : 'text');
        const keep = mode !== 'no-' + kind;
        for (let c = 0; c < 3; ++c) to[i + c] = keep ? corners[c] : 0;
      }
      bufferSubData(gl.ELEMENT_ARRAY_BUFFER, offset, to);
    }
    return drawElements(primitive, count, type, offset);
  };
  return gl;
};
"""


def main():
    site = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    modes = sys.argv[3:] or MODES
    work = tempfile.mkdtemp(prefix="bench-page-parts-")
    server, base = page.serve(site)
    try:
        for round_index in range(rounds):
            for mode in modes:
                # A fresh browser per drag: the wrapper is installed before the page's scripts run.
                driver = page.browser(tempfile.mkdtemp(prefix="profile-", dir=work), work)
                try:
                    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                           {"source": WRAPPER % json.dumps(mode)})
                    page.open_page(driver, base + "index.html?set=seq_len=1024", settle=4.0)
                    load = bench_page.load_average()
                    page.count_frames(driver)
                    bench_page.drag_back_and_forth(driver, 8.0)
                    intervals = bench_page.frame_intervals(driver)
                    print(json.dumps({"round": round_index + 1, "mode": mode, "load_before": load,
                                      **intervals}), flush=True)
                finally:
                    driver.quit()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
