# The two README commands: `make run` (install what is missing, build, open the app)
# and `make test` (install what is missing, build, run every test). `make bench` too.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifneq ($(CI),)
CMAKE_FLAGS += -DSMLAB_WERROR=ON
endif

.PHONY: deps deps-test configure build run check test test-fresh package test-package bench clean web serve-web

deps:
	./third_party/install-deps.sh

# What every test needs besides (sanitizer and fuzzer runtimes, Xvfb, chromium, emcc, ...).
deps-test:
	./third_party/install-deps.sh --test

# Every Release build compiles as Debian builds its packages: dpkg-buildflags with hardening=+all
# (stack protector, _FORTIFY_SOURCE, format-security, relro and bindnow), less -g (the package's
# binary is stripped; a Release build carries no debug information). So the app a user builds, the
# one the tests run and the one the .deb ships are compiled alike.
# With ccache (install-deps --test installs it), `make package` then takes every object but one
# (presets.cpp, the assets path) from the Release build's: CCACHE_BASEDIR makes their paths relative.
BUILD_FLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CFLAGS_MAINT_STRIP=-g DEB_CXXFLAGS_MAINT_STRIP=-g dpkg-buildflags --get
HARDENED = -DCMAKE_C_FLAGS="$$($(BUILD_FLAGS) CPPFLAGS) $$($(BUILD_FLAGS) CFLAGS)" \
	-DCMAKE_CXX_FLAGS="$$($(BUILD_FLAGS) CPPFLAGS) $$($(BUILD_FLAGS) CXXFLAGS)" \
	-DCMAKE_EXE_LINKER_FLAGS="$$($(BUILD_FLAGS) LDFLAGS)" \
	$$(command -v ccache >/dev/null && echo -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR = $(CURDIR)

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(HARDENED) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/app/softmax-lab $(ARGS)

# `make web`: the same app as a static page in $(BUILD_DIR)-web/site (index.html, page.js, sw.js,
# softmax-lab.js/.wasm/.data, zh-font.ttf, and a .gz of each), built by Debian's emcc (app/web/).
# `make serve-web` shows it on 127.0.0.1, sending the precompressed files (app/web/serve.py).
# emcc runs Debian's node and acorn: /usr/bin first on PATH, NODE_PATH for a foreign node.
WEB_ENV = PATH=/usr/bin:$$PATH NODE_PATH=/usr/share/nodejs
WEB_PORT ?= 8000
web: deps-test
	$(WEB_ENV) emcmake cmake -S . -B $(BUILD_DIR)-web -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	$(WEB_ENV) cmake --build $(BUILD_DIR)-web -j $(JOBS) --target softmax-lab-web-site
	@du -b $(BUILD_DIR)-web/site/* | sed 's|^|web: |'

serve-web: web
	/usr/bin/python3 app/web/serve.py $(BUILD_DIR)-web/site $(WEB_PORT)

# The quick tier for the edit loop (under a minute once built): the core's numbers, the labs, the
# lesson claims, the plots' geometry, the trainer, the web page's logic and the structure checks
# (tests labelled `quick` in tests/CMakeLists.txt); no window, no renders, no sanitizers.
# It builds only the quick tier's executables (the CMake target quick-tier), not every test.
check: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target quick-tier
	cd $(BUILD_DIR) && ctest -L quick --output-on-failure -j $(JOBS)

# The suite three times: as built for users; the same suite but the sweeps over every lesson step
# and the many-seed measurements (label slow, tests/CMakeLists.txt) under AddressSanitizer and
# UndefinedBehaviorSanitizer (a test that passed but whose exit LeakSanitizer's tracer crashed on
# runs once more: tests/sanitizer/rerun-tracer-crashes.sh); then the libFuzzer targets (clang).
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads a dynamic TLS block that starts 16
# bytes into a page and crashes at exit (tests/sanitizer/dtls_page_offset_test.cpp).
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:intercept_tls_get_addr=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizer/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

test: deps-test build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	cmake -S . -B $(BUILD_DIR)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSMLAB_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR)-asan -j $(JOBS)
	cd $(BUILD_DIR)-asan && export $(SANITIZER_ENV) SMLAB_SOAK_STEPS=2000 && \
	  { ctest --output-on-failure -j $(JOBS) -LE slow || $(CURDIR)/tests/sanitizer/rerun-tracer-crashes.sh; }
	cmake -S tests/fuzz -B $(BUILD_DIR)-fuzz -DCMAKE_CXX_COMPILER=clang++-14
	cmake --build $(BUILD_DIR)-fuzz -j $(JOBS)
	cd $(BUILD_DIR)-fuzz && ctest --output-on-failure -j $(JOBS)

# The README's commands on a fresh Debian 12 minbase chroot (root only; tests/fresh-machine/run.sh).
test-fresh: deps-test
	./tests/fresh-machine/run.sh $(BUILD_DIR)-fresh

# `make package`: the Debian package (CPack): build-package/softmax-lab_<version>-1_<arch>.deb with
# /usr/bin/softmax-lab, /usr/share/softmax-lab, the menu entry, icon and man page (packaging/),
# compiled as every Release build is (HARDENED above), and the student site a hosted class serves
# (make web: /usr/share/softmax-lab/site).
package: deps web
	cmake -S . -B $(BUILD_DIR)-package -DCMAKE_BUILD_TYPE=Release -DSMLAB_PACKAGE=ON -DSMLAB_BUILD_TESTS=OFF \
	  -DCMAKE_INSTALL_PREFIX=/usr -DSMLAB_PACKAGE_SITE=$(CURDIR)/$(BUILD_DIR)-web/site $(HARDENED) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR)-package -j $(JOBS)
	rm -f $(BUILD_DIR)-package/softmax-lab_*.deb
	cd $(BUILD_DIR)-package && cpack -G DEB

# That .deb installed with apt into a fresh Debian 12 minbase chroot, then rendered (root only;
# tests/package/run.sh). Shares test-fresh's downloaded-package cache.
test-package: package
	./tests/package/run.sh $(BUILD_DIR)-package $(BUILD_DIR)-package-test $(BUILD_DIR)-fresh/debs

# `make bench`: the kernel suite, the frame harness at three L, the NumPy peer, the slider-to-pixels
# latency against the matplotlib peer (bench/latency.sh), quiet and with one busy thread beside
# both (LOAD=1), all in one run on the same machine
# state, then the ratios (docs/PERFORMANCE.md).
BENCH_RESULTS = $(BUILD_DIR)-bench/results
bench: deps-test
	./bench/install-peers.sh
	cmake -S . -B $(BUILD_DIR)-bench -DCMAKE_BUILD_TYPE=Release -DSMLAB_BUILD_BENCH=ON -DSMLAB_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR)-bench -j $(JOBS) --target smlab-bench softmax-lab
	mkdir -p $(BENCH_RESULTS)
	$(BUILD_DIR)-bench/bench/smlab-bench --benchmark_out=$(BENCH_RESULTS)/kernels.json --benchmark_out_format=json
	for run in "256 64 temperature" "1024 64 temperature" "1024 1024 temperature" "4096 64 temperature" "4096 64 d_k"; do \
	  set -- $$run; \
	  printf '{"L":%s,"d_k":%s,"key":"%s","result":%s}\n' $$1 $$2 $$3 \
	    "$$($(BUILD_DIR)-bench/app/softmax-lab --bench-frames 120 --bench-key $$3 --set seq_len=$$1 --set d_k=$$2)"; \
	done | tee $(BENCH_RESULTS)/frames.jsonl
	for L in 4096 16384 32768; do \
	  /usr/bin/python3 bench/make_long_context.py $(BENCH_RESULTS) $$L 128 >/dev/null; \
	  printf '{"L":%s,"d":128,"import":true,"result":%s}\n' $$L \
	    "$$($(BUILD_DIR)-bench/app/softmax-lab --bench-frames 20 --bench-key temperature --import $(BENCH_RESULTS)/long-$$L.npz)"; \
	done | tee $(BENCH_RESULTS)/imports.jsonl
	/usr/bin/python3 bench/numpy_peer.py > $(BENCH_RESULTS)/numpy.json
	{ ./bench/latency.sh $(BUILD_DIR)-bench/app/softmax-lab 3 10 16 256 1024; \
	  ./bench/latency.sh $(BUILD_DIR)-bench/app/softmax-lab 2 4 4096; \
	  LOAD=1 ./bench/latency.sh $(BUILD_DIR)-bench/app/softmax-lab 3 10 1024; \
	  LOAD=1 ./bench/latency.sh $(BUILD_DIR)-bench/app/softmax-lab 2 4 4096; } | tee $(BENCH_RESULTS)/latency.jsonl
	/usr/bin/python3 bench/report.py $(BENCH_RESULTS)

clean:
	@! findmnt -rn -o TARGET | grep -q "^$(CURDIR)/$(BUILD_DIR)-fresh/" || { echo "clean: mounts left under $(BUILD_DIR)-fresh; unmount them first" >&2; exit 1; }
	@! findmnt -rn -o TARGET | grep -q "^$(CURDIR)/$(BUILD_DIR)-package-test/" || { echo "clean: mounts left under $(BUILD_DIR)-package-test; unmount them first" >&2; exit 1; }
	rm -rf --one-file-system $(BUILD_DIR) $(BUILD_DIR)-web $(BUILD_DIR)-bench $(BUILD_DIR)-asan $(BUILD_DIR)-fuzz $(BUILD_DIR)-fresh \
	  $(BUILD_DIR)-package $(BUILD_DIR)-package-test
