// Headless render helpers shared by the app tests: a fixture holding an offscreen surface of a
// given size (string tables loaded, no DISPLAY) that settles an App to its final picture, a count
// of the pixels two captures differ in, and frames until an App's exports are written.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "frame/app.hpp"
#include "i18n/i18n.hpp"
#include "platform/offscreen.hpp"
#include "state/presets.hpp"

namespace smlab::app::test_support {

class HeadlessRender : public ::testing::Test {
 protected:
  HeadlessRender(int width, int height) : width_(width), height_(height) {}
  void SetUp() override {
    ::unsetenv("DISPLAY");
    ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
    platform::OffscreenOptions options;
    options.width = width_;
    options.height = height_;
    auto created = platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
  }
  // The final result (the Monte Carlo sweep refined as far as headless renders go), three frames.
  Image settle(App& app) {
    app.evaluator().set_refine_limit(headless_refine_trials(app.ui().params.seq_len));
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    return surface_->capture();
  }
  std::unique_ptr<platform::Offscreen> surface_;

 private:
  int width_, height_;
};

// Pixels of the rectangle [min, max), less `inset` px at each edge, whose RGB differ by more than
// 30 in sum between the two captures.
inline int differing_pixels(const Image& a, const Image& b, ImVec2 min, ImVec2 max, int inset = 0) {
  int count = 0;
  for (int y = static_cast<int>(min.y) + inset; y < static_cast<int>(max.y) - inset; ++y)
    for (int x = static_cast<int>(min.x) + inset; x < static_cast<int>(max.x) - inset; ++x) {
      const Rgba8 p = a.pixel(x, y), q = b.pixel(x, y);
      count += std::abs(p.r - q.r) + std::abs(p.g - q.g) + std::abs(p.b - q.b) > 30;
    }
  return count;
}

// Window frames until the App runs no export (a PNG renders a step a frame, then its files are
// written on a thread of their own). False if one still runs after 6000 frames.
inline bool frames_until_exported(App& app) {
  for (int frame = 0; frame < 6000 && app.exporting(); ++frame) {
    app.frame();
    if (app.exporting()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return !app.exporting();
}

}  // namespace smlab::app::test_support
