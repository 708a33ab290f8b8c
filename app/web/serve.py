#!/usr/bin/python3
# `make serve-web`: the page's folder on a local HTTP server that sends each file's gzip'd copy
# (finish_site.py made them) to a browser that accepts gzip, with Content-Encoding: gzip, and the
# types a browser needs (application/wasm compiles while it downloads). Also the browser tests' server.
# Usage: serve.py SITE_DIR [PORT] (PORT 0: any free port; the address is printed)
import functools
import http.server
import os
import sys

TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".wasm": "application/wasm",
         ".data": "application/octet-stream", ".ttf": "font/ttf", ".json": "application/json"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        packed = path + ".gz"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and os.path.isfile(packed) and os.path.isfile(path)):
            return super().send_head()
        handle = open(packed, "rb")
        size = os.fstat(handle.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(size))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Last-Modified", self.date_time_string(int(os.path.getmtime(path))))
        self.end_headers()
        return handle

    def log_message(self, *args):
        pass


def server(site, port=0, host="127.0.0.1"):
    return http.server.ThreadingHTTPServer((host, port), functools.partial(Handler, directory=site))


def main():
    site = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 8000
    httpd = server(site, port)
    print(f"serve-web: http://127.0.0.1:{httpd.server_address[1]}/ (precompressed .gz; Ctrl+C stops)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
