// The Trainer's worker thread (the desktop build): it sleeps until the UI hands something over or
// there is training to do, then works in slices (trainer_step.cpp), so a new setting or command
// reaches the running training within one slice. The web page replaces this file
// (app/web/trainer_web.cpp).
#include "work/trainer.hpp"

namespace smlab::app {

Trainer::Trainer() {
  worker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    bool more = false;
    while (!stopping_) {
      if (!has_mail_ && !more) {
        busy_ = false;
        idle_.notify_all();
        wake_.wait(lock, [this] { return has_mail_ || stopping_; });
        if (stopping_) break;
      } else if (!has_mail_ && resume_at_) {
        // A paced training: asleep until its next step is due, or the UI hands something over.
        wake_.wait_until(lock, *resume_at_, [this] { return has_mail_ || stopping_; });
        if (stopping_) break;
      }
      busy_ = true;
      lock.unlock();
      more = work(slice);
      lock.lock();
    }
    busy_ = false;
    idle_.notify_all();
  });
}

Trainer::~Trainer() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    closing_.request_stop();
    interrupt_.request_stop();
  }
  wake_.notify_all();
  worker_.join();
}

void Trainer::wait_until_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return !busy_ && !has_mail_; });
}

bool Trainer::pump(std::chrono::steady_clock::duration) { return false; }  // the worker trains

}  // namespace smlab::app
