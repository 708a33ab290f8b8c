#!/usr/bin/python3
# The last step of `make web`: the page's own files copied beside what emcc wrote, the service
# worker stamped with this build's version (a hash of every file it caches) and file list, and a
# gzip'd copy of each file (level 9, no time stamp: the same build gives the same bytes) for a
# server that sends precompressed files (serve.py).
# Usage: finish_site.py SOURCE_DIR SITE_DIR
import gzip
import hashlib
import json
import os
import sys

# Cached at install (the page, its runtime and data); cached when first fetched (the Chinese font).
CACHED = ["index.html", "page.js", "export-worker.js", "softmax-lab.js", "softmax-lab.wasm", "softmax-lab.data"]
ON_DEMAND = ["zh-font.ttf"]


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as handle:
            if handle.read() == data:
                return
    temporary = path + ".tmp"
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


def main():
    source, site = sys.argv[1], sys.argv[2]
    for name in ["index.html", "page.js", "export-worker.js"]:
        with open(os.path.join(source, name), "rb") as handle:
            write_if_changed(os.path.join(site, name), handle.read())
    digest = hashlib.sha256()
    for name in CACHED + ON_DEMAND:
        with open(os.path.join(site, name), "rb") as handle:
            digest.update(name.encode() + b"\0" + handle.read())
    version = digest.hexdigest()[:16]
    with open(os.path.join(source, "sw.js"), encoding="utf-8") as handle:
        worker = handle.read()
    worker = (worker.replace("@VERSION@", version).replace("@FILES@", json.dumps(CACHED))
              .replace("@ON_DEMAND@", json.dumps(ON_DEMAND)))
    write_if_changed(os.path.join(site, "sw.js"), worker.encode("utf-8"))
    names = CACHED + ON_DEMAND + ["sw.js"]
    for name in names:
        path = os.path.join(site, name)
        with open(path, "rb") as handle:
            data = handle.read()
        write_if_changed(path + ".gz", gzip.compress(data, compresslevel=9, mtime=0))
    for name in os.listdir(site):  # nothing stale
        if name.endswith(".gz") and name[:-3] not in names:
            os.remove(os.path.join(site, name))
        if name.endswith(".tmp"):
            os.remove(os.path.join(site, name))
    total = sum(os.path.getsize(os.path.join(site, n)) for n in names)
    packed = sum(os.path.getsize(os.path.join(site, n + ".gz")) for n in names)
    print(f"web: site {total / 1e6:.2f} MB, {packed / 1e6:.2f} MB gzip'd; cache version {version}")


if __name__ == "__main__":
    main()
