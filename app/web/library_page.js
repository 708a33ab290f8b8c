// The page's changes to emscripten 3.1.6's GLFW 3 and WebGL library (linked with --js-library after
// them, so these definitions replace their own): a canvas whose backing store is CSS size ×
// devicePixelRatio, one way in for the page's touch input and typed characters (page.js), which
// drives the same GLFW state a mouse and a keyboard do, and buffer uploads of 0 bytes skipped.
//
// Why: emscripten 3.1.6's GLFW makes the window size, the framebuffer size and the canvas's backing
// store one number, and reports the cursor in backing-store pixels. Dear ImGui's GLFW backend then
// lays out in device pixels with DisplayFramebufferScale 1, and the app's fonts are rasterised for
// CSS pixels: stretched and soft at DPR 2. Here the window size stays in CSS pixels (ImGui's
// DisplaySize), the framebuffer is the backing store (DisplayFramebufferScale = DPR), and the cursor
// comes back in CSS pixels, as GLFW does on a HiDPI desktop.
mergeInto(LibraryManager.library, {
  // The page's device pixel ratio, bounded so a zoomed-in phone cannot ask for a 20k canvas.
  $SmlabPage__deps: ['$GLFW', '$Browser'],
  $SmlabPage__postset: 'SmlabPage.install();',
  $SmlabPage: {
    pixelRatio: function() {
      var ratio = Number(window.devicePixelRatio) || 1;
      return Math.min(Math.max(ratio, 0.5), 4);
    },
    // Backing-store pixels per GLFW window unit (CSS pixel) for the active window.
    backingScale: function(win) {
      var canvas = Module['canvas'];
      return win && win.width > 0 && canvas.width > 0 ? canvas.width / win.width : 1;
    },
    // A synthetic mouse event at a point given in client (viewport CSS) coordinates: GLFW's own
    // handlers read target, button and page coordinates from it.
    mouseEvent: function(type, clientX, clientY) {
      return {
        type: type, target: Module['canvas'], button: 0,
        pageX: clientX + (window.scrollX || 0), pageY: clientY + (window.scrollY || 0),
        preventDefault: function() {},
      };
    },
    install: function() {
      // Touch (page.js) enters here: one pointer moved, pressed or released at client coordinates,
      // through GLFW's mouse handlers, so ImGui sees exactly what a mouse would give it.
      Module['smlabPointer'] = function(kind, clientX, clientY) {
        if (!GLFW.active) return;
        if (kind === 'move') {
          GLFW.onMousemove(SmlabPage.mouseEvent('mousemove', clientX, clientY));
        } else {
          var type = kind === 'down' ? 'mousedown' : 'mouseup';
          GLFW.onMouseButtonChanged(SmlabPage.mouseEvent(type, clientX, clientY), kind === 'down' ? 1 : 0);
        }
      };
      // Wheel (and two-finger touch scrolling): emscripten 3.1.6 hands GLFW the raw deltaY in pixels
      // with the browser's sign (down positive), so one notch scrolled ImGui 100 lines up. GLFW's
      // convention is lines, up positive. Replaced before glfwCreateWindow registers the listener.
      GLFW.onMouseWheel = function(event) {
        if (!GLFW.active || !GLFW.active.scrollFunc || event.target != Module['canvas']) return;
        // Notches, as GLFW reports a desktop wheel (ImGui scrolls 5 lines a notch): ~100 px or 3
        // lines each, a page 10.
        var lines = function(delta) {
          if (event.deltaMode === 1) return delta / 3;
          if (event.deltaMode === 2) return delta * 10;
          return delta / 100;
        };
        {{{ makeDynCall('vidd', 'GLFW.active.scrollFunc') }}}(GLFW.active.id, -lines(event.deltaX || 0),
                                                              -lines(event.deltaY || 0));
        event.preventDefault();
      };
      // A character typed into the app (ImGui's text fields): the page's Space, whose keydown it
      // prevents (no keypress follows), and the phone's text entry (page.js).
      Module['smlabTypeChar'] = function(code) {
        if (!GLFW.active || !GLFW.active.charFunc) return;
        {{{ makeDynCall('vii', 'GLFW.active.charFunc') }}}(GLFW.active.id, code);
      };
      // A key pressed and released (DOM key code): Backspace and Enter from the phone's text entry.
      Module['smlabKey'] = function(keyCode) {
        GLFW.onKeyChanged(keyCode, 1);
        GLFW.onKeyChanged(keyCode, 0);
      };
      Module['smlabWheel'] = function(deltaX, deltaY, clientX, clientY) {
        var event = SmlabPage.mouseEvent('wheel', clientX, clientY);
        event.deltaMode = 0;
        event.deltaX = deltaX;
        event.deltaY = deltaY;
        GLFW.onMousemove(SmlabPage.mouseEvent('mousemove', clientX, clientY));
        GLFW.onMouseWheel(event);
      };
    },
  },

  // Window size in CSS pixels; the canvas's backing store that times the device pixel ratio.
  glfwSetWindowSize__deps: ['$SmlabPage'],
  glfwSetWindowSize: function(winid, width, height) {
    var win = GLFW.WindowFromId(winid);
    if (!win) return;
    var ratio = SmlabPage.pixelRatio();
    var canvas = Module['canvas'];
    var pixelWidth = Math.max(1, Math.round(width * ratio)), pixelHeight = Math.max(1, Math.round(height * ratio));
    if (canvas.width != pixelWidth) canvas.width = pixelWidth;
    if (canvas.height != pixelHeight) canvas.height = pixelHeight;
    win.width = width;
    win.height = height;
    if (win.windowSizeFunc) {{{ makeDynCall('viii', 'win.windowSizeFunc') }}}(win.id, width, height);
  },

  // The framebuffer is the backing store.
  glfwGetFramebufferSize__deps: ['$SmlabPage'],
  glfwGetFramebufferSize: function(winid, width, height) {
    var win = GLFW.WindowFromId(winid);
    var canvas = Module['canvas'];
    if (width) setValue(width, win ? canvas.width : 0, 'i32');
    if (height) setValue(height, win ? canvas.height : 0, 'i32');
  },

  // An upload of 0 bytes uploads nothing. WebGL 2's bufferSubData(target, offset, HEAPU8, data,
  // length) reads a length of 0 as "to the end of HEAPU8": emscripten 3.1.6 passes the size through,
  // so Dear ImGui's upload of an empty draw list was a "buffer overflow" INVALID_VALUE (dozens a
  // drag, and Chrome stops reporting WebGL errors after 256). bufferData with data likewise.
  glBufferSubData: function(target, offset, size, data) {
    if (size > 0) GLctx.bufferSubData(target, offset, HEAPU8, data, size);
  },
  glBufferData: function(target, size, data, usage) {
    if (data && size > 0) GLctx.bufferData(target, HEAPU8, usage, data, size);
    else GLctx.bufferData(target, size, usage);
  },

  // The cursor in window units (CSS pixels): GLFW keeps it in backing-store pixels.
  glfwGetCursorPos__deps: ['$SmlabPage'],
  glfwGetCursorPos: function(winid, x, y) {
    var scale = SmlabPage.backingScale(GLFW.WindowFromId(winid));
    setValue(x, Browser.mouseX / scale, 'double');
    setValue(y, Browser.mouseY / scale, 'double');
  },
});
