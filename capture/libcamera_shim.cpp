// capture: a thin C++17 shim over libcamera with a C face
// (libcamera_shim.h). The only file in teppich that includes libcamera.
//
// One camera, one YUV420 stream, the libcamera-allocated buffers mapped
// once (dmabuf planes), requests re-queued as soon as the reader is done
// with a frame. Completed requests arrive on libcamera's thread and are
// handed over through a mutex and a condition variable.
//
// Versions (LIBCAMERA_VERSION_* from <libcamera/version.h>):
//   0.0.3  Debian 12: generateConfiguration(StreamRoles = std::vector),
//          AeLocked reports convergence.
//   0.4    Debian 13: generateConfiguration(Span<const StreamRole>); a
//          std::vector converts to both.
//   0.5.0+ Raspberry Pi OS: AeLocked is gone, AeState reports convergence;
//          exposure and gain have their own ExposureTimeMode and
//          AnalogueGainMode (AeEnable remains, as a shortcut for both).
//   0.5.2+ FrameMetadata::FrameStartup marks frames from before the
//          algorithms settled: handed out, but never "converged".
//   0.6+   string properties are std::string_view and FrameBuffer::planes()
//          a Span: only used through `auto` and std::string(...) here.
// No exception leaves this file.
#include "libcamera_shim.h"

#include <libcamera/camera.h>
#include <libcamera/camera_manager.h>
#include <libcamera/control_ids.h>
#include <libcamera/formats.h>
#include <libcamera/framebuffer_allocator.h>
#include <libcamera/logging.h>
#include <libcamera/property_ids.h>
#include <libcamera/request.h>
#include <libcamera/stream.h>
#include <libcamera/version.h>

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#define CAP_LCAM_VERSION                                                     \
  (LIBCAMERA_VERSION_MAJOR * 10000 + LIBCAMERA_VERSION_MINOR * 100 +         \
   LIBCAMERA_VERSION_PATCH)
#define CAP_LCAM_AT_LEAST(major, minor, patch)                               \
  (CAP_LCAM_VERSION >= (major) * 10000 + (minor) * 100 + (patch))

#define CAP_LCAM_STR2(x) #x
#define CAP_LCAM_STR(x) CAP_LCAM_STR2(x)

using namespace libcamera;

namespace {

void set_msg(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void set_msg(char *msg, size_t len, const char *fmt, ...) {
  if (!msg || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

// libcamera logs to stderr by default; teppich's errors are one line.
// LIBCAMERA_LOG_LEVELS set by the user means they want its log.
void quiet_libcamera_log() {
  if (!getenv("LIBCAMERA_LOG_LEVELS")) logSetTarget(LoggingTargetNone);
}

const char kNoCameraHint[] =
    "check the ribbon cable (contacts the right way round, camera powered "
    "off while plugging), camera_auto_detect=1 in /boot/firmware/config.txt "
    "and `rpicam-hello --list-cameras`; Debian 12's libcamera 0.0.3 cannot "
    "drive a Camera Module 3 or a Pi 5";

std::string model_of(const Camera &camera) {
  const auto model = camera.properties().get(properties::Model);
  if (model) return std::string(*model);
  return camera.id();
}

struct Mapping {
  void *addr;
  size_t len;
};

struct PlanePtrs {
  uint8_t *p[3] = {nullptr, nullptr, nullptr};
};

// What the next queued request should carry to the camera.
struct PendingControls {
  bool set = false;
  bool manual = false;
  cap__lcam_lock values{};
};

class Cam {
public:
  ~Cam() { shutdown(); }

  int open(const cap__lcam_config &cfg, char *msg, size_t len);
  int next(int timeout_ms, cap__lcam_frame *frame, char *msg, size_t len);
  void setLock(const cap__lcam_lock *lock);
  void describe(char *model, size_t model_len, char *format, size_t format_len,
                int *width, int *height, double *fps) const;

private:
  int selectCamera(const cap__lcam_config &cfg, char *msg, size_t len);
  int configure(const cap__lcam_config &cfg, char *msg, size_t len);
  int mapBuffers(char *msg, size_t len);
  int start(const cap__lcam_config &cfg, char *msg, size_t len);
  void requeue(Request *request);
  void applyPending(ControlList &controls);
  void fillFrame(Request *request, cap__lcam_frame *frame);
  void onRequestCompleted(Request *request);
  void onDisconnected();
  void shutdown();

  std::unique_ptr<CameraManager> manager_;
  std::shared_ptr<Camera> camera_;
  bool acquired_ = false;
  bool started_ = false;
  std::unique_ptr<CameraConfiguration> config_;
  std::unique_ptr<FrameBufferAllocator> allocator_;
  Stream *stream_ = nullptr;
  std::vector<std::unique_ptr<Request>> requests_;
  std::map<const FrameBuffer *, PlanePtrs> planes_;
  std::vector<Mapping> mappings_;
  double fps_ = 0;

  std::mutex mutex_; // guards completed_, lost_ (libcamera's thread)
  std::condition_variable cond_;
  std::deque<Request *> completed_;
  bool lost_ = false;

  Request *held_ = nullptr; // the request whose buffer the reader has
  PendingControls pending_;
};

int Cam::selectCamera(const cap__lcam_config &cfg, char *msg, size_t len) {
  const auto cameras = manager_->cameras();
  if (cameras.empty()) {
    set_msg(msg, len, "no libcamera camera found: %s", kNoCameraHint);
    return CAP__LCAM_NOTFOUND;
  }
  if (cfg.id && *cfg.id) {
    camera_ = manager_->get(cfg.id);
    if (!camera_) {
      set_msg(msg, len,
              "no libcamera camera with id '%s'; `teppich cameras` lists "
              "the ids",
              cfg.id);
      return CAP__LCAM_NOTFOUND;
    }
  } else {
    size_t index = cfg.index < 0 ? 0 : (size_t)cfg.index;
    if (index >= cameras.size()) {
      set_msg(msg, len,
              "libcamera:%zu asked for, but there %s only %zu camera%s "
              "(numbered from 0)",
              index, cameras.size() == 1 ? "is" : "are", cameras.size(),
              cameras.size() == 1 ? "" : "s");
      return CAP__LCAM_NOTFOUND;
    }
    camera_ = cameras[index];
  }
  if (camera_->acquire() != 0) {
    set_msg(msg, len,
            "camera %s is in use by another program (rpicam-*, another "
            "teppich?): close it first",
            model_of(*camera_).c_str());
    camera_.reset();
    return CAP__LCAM_BUSY;
  }
  acquired_ = true;
  return CAP__LCAM_OK;
}

int Cam::configure(const cap__lcam_config &cfg, char *msg, size_t len) {
  // Viewfinder: the low-latency role with a few buffers, what a live view
  // of the table needs. A std::vector converts to StreamRoles (0.0.3) and
  // to Span<const StreamRole> (0.1+).
  std::vector<StreamRole> roles{StreamRole::Viewfinder};
  config_ = camera_->generateConfiguration(roles);
  if (!config_ || config_->empty()) {
    set_msg(msg, len, "camera %s offers no video stream",
            model_of(*camera_).c_str());
    return CAP__LCAM_UNSUPPORTED;
  }
  StreamConfiguration &sc = config_->at(0);
  sc.pixelFormat = formats::YUV420;
  if (cfg.width > 0 && cfg.height > 0)
    sc.size = Size((unsigned)cfg.width, (unsigned)cfg.height);
  if (config_->validate() == CameraConfiguration::Invalid) {
    set_msg(msg, len, "camera %s cannot stream YUV420 at %dx%d",
            model_of(*camera_).c_str(), cfg.width, cfg.height);
    return CAP__LCAM_UNSUPPORTED;
  }
  if (sc.pixelFormat != formats::YUV420 && sc.pixelFormat != formats::NV12) {
    set_msg(msg, len, "camera %s offers %s, not YUV420 or NV12",
            model_of(*camera_).c_str(), sc.pixelFormat.toString().c_str());
    return CAP__LCAM_UNSUPPORTED;
  }
  int ret = camera_->configure(config_.get());
  if (ret < 0) {
    set_msg(msg, len, "camera %s refused its configuration: %s",
            model_of(*camera_).c_str(), strerror(-ret));
    return CAP__LCAM_ERROR;
  }
  stream_ = sc.stream();
  return CAP__LCAM_OK;
}

// Maps each dmabuf once, as long as the furthest plane in it reaches; the
// planes of one buffer often share one dmabuf at different offsets.
int Cam::mapBuffers(char *msg, size_t len) {
  for (const std::unique_ptr<FrameBuffer> &buffer :
       allocator_->buffers(stream_)) {
    std::map<int, size_t> extent;
    for (const auto &plane : buffer->planes()) {
      size_t offset = plane.offset == FrameBuffer::Plane::kInvalidOffset
                          ? 0 : plane.offset;
      size_t &e = extent[plane.fd.get()];
      e = std::max(e, offset + plane.length);
    }
    std::map<int, uint8_t *> base;
    for (const auto &fd_len : extent) {
      void *addr = mmap(nullptr, fd_len.second, PROT_READ, MAP_SHARED,
                        fd_len.first, 0);
      if (addr == MAP_FAILED) {
        set_msg(msg, len, "cannot map a camera buffer: %s", strerror(errno));
        return CAP__LCAM_ERROR;
      }
      mappings_.push_back({addr, fd_len.second});
      base[fd_len.first] = static_cast<uint8_t *>(addr);
    }
    PlanePtrs ptrs;
    size_t i = 0;
    for (const auto &plane : buffer->planes()) {
      if (i >= 3) break;
      size_t offset = plane.offset == FrameBuffer::Plane::kInvalidOffset
                          ? 0 : plane.offset;
      ptrs.p[i++] = base[plane.fd.get()] + offset;
    }
    planes_[buffer.get()] = ptrs;
  }
  return CAP__LCAM_OK;
}

int Cam::start(const cap__lcam_config &cfg, char *msg, size_t len) {
  for (const std::unique_ptr<FrameBuffer> &buffer :
       allocator_->buffers(stream_)) {
    std::unique_ptr<Request> request = camera_->createRequest();
    if (!request || request->addBuffer(stream_, buffer.get()) < 0) {
      set_msg(msg, len, "cannot create a camera request");
      return CAP__LCAM_ERROR;
    }
    requests_.push_back(std::move(request));
  }
  camera_->requestCompleted.connect(this, &Cam::onRequestCompleted);
  camera_->disconnected.connect(this, &Cam::onDisconnected);

  ControlList controls(controls::controls);
  const ControlInfoMap &info = camera_->controls();
  if (cfg.fps > 0 && info.count(controls::FrameDurationLimits.id())) {
    const int64_t us = (int64_t)(1e6 / cfg.fps);
    const std::array<int64_t, 2> limits{us, us};
    controls.set(controls::FrameDurationLimits,
                 Span<const int64_t, 2>(limits));
    fps_ = cfg.fps;
  }
  // Automatic exposure and white balance until the C side locks them.
  if (info.count(controls::AeEnable.id()))
    controls.set(controls::AeEnable, true);
  if (info.count(controls::AwbEnable.id()))
    controls.set(controls::AwbEnable, true);
  int ret = camera_->start(&controls);
  if (ret < 0) {
    set_msg(msg, len, "camera %s does not start: %s",
            model_of(*camera_).c_str(), strerror(-ret));
    return CAP__LCAM_ERROR;
  }
  started_ = true;
  for (std::unique_ptr<Request> &request : requests_) {
    if (camera_->queueRequest(request.get()) < 0) {
      set_msg(msg, len, "camera %s does not take requests",
              model_of(*camera_).c_str());
      return CAP__LCAM_ERROR;
    }
  }
  return CAP__LCAM_OK;
}

int Cam::open(const cap__lcam_config &cfg, char *msg, size_t len) {
  quiet_libcamera_log();
  manager_ = std::make_unique<CameraManager>();
  int ret = manager_->start();
  if (ret < 0) {
    set_msg(msg, len, "libcamera does not start (%s): %s", strerror(-ret),
            kNoCameraHint);
    manager_.reset();
    return CAP__LCAM_NOTFOUND;
  }
  int rc = selectCamera(cfg, msg, len);
  if (rc == CAP__LCAM_OK) rc = configure(cfg, msg, len);
  if (rc == CAP__LCAM_OK) {
    allocator_ = std::make_unique<FrameBufferAllocator>(camera_);
    if (allocator_->allocate(stream_) < 0) {
      set_msg(msg, len, "cannot allocate camera buffers");
      rc = CAP__LCAM_ERROR;
    }
  }
  if (rc == CAP__LCAM_OK) rc = mapBuffers(msg, len);
  if (rc == CAP__LCAM_OK) rc = start(cfg, msg, len);
  if (rc != CAP__LCAM_OK) shutdown();
  return rc;
}

void Cam::onRequestCompleted(Request *request) {
  if (request->status() == Request::RequestCancelled) return;
  std::lock_guard<std::mutex> lock(mutex_);
  completed_.push_back(request);
  cond_.notify_one();
}

void Cam::onDisconnected() {
  std::lock_guard<std::mutex> lock(mutex_);
  lost_ = true;
  cond_.notify_one();
}

void Cam::applyPending(ControlList &controls) {
  if (!pending_.set) return;
  const ControlInfoMap &info = camera_->controls();
  const bool automatic = !pending_.manual;
  if (info.count(controls::AeEnable.id()))
    controls.set(controls::AeEnable, automatic);
  if (info.count(controls::AwbEnable.id()))
    controls.set(controls::AwbEnable, automatic);
#if CAP_LCAM_AT_LEAST(0, 5, 0)
  // 0.5 split AeEnable into one mode per value; set them explicitly so
  // that the locked values are not recomputed.
  if (info.count(controls::ExposureTimeMode.id()))
    controls.set(controls::ExposureTimeMode,
                 automatic ? controls::ExposureTimeModeAuto
                           : controls::ExposureTimeModeManual);
  if (info.count(controls::AnalogueGainMode.id()))
    controls.set(controls::AnalogueGainMode,
                 automatic ? controls::AnalogueGainModeAuto
                           : controls::AnalogueGainModeManual);
#endif
  if (pending_.manual) {
    const cap__lcam_lock &v = pending_.values;
    if (v.exposure_us > 0 && info.count(controls::ExposureTime.id()))
      controls.set(controls::ExposureTime, v.exposure_us);
    if (v.gain > 0 && info.count(controls::AnalogueGain.id()))
      controls.set(controls::AnalogueGain, v.gain);
    if (v.colour_gains[0] > 0 && v.colour_gains[1] > 0 &&
        info.count(controls::ColourGains.id())) {
      const std::array<float, 2> gains{v.colour_gains[0], v.colour_gains[1]};
      controls.set(controls::ColourGains, Span<const float, 2>(gains));
    }
  }
  pending_.set = false;
}

void Cam::requeue(Request *request) {
  if (!started_) return;
  request->reuse(Request::ReuseBuffers);
  applyPending(request->controls());
  camera_->queueRequest(request);
}

void Cam::setLock(const cap__lcam_lock *lock) {
  pending_.set = true;
  pending_.manual = lock != nullptr;
  if (lock) pending_.values = *lock;
}

void Cam::fillFrame(Request *request, cap__lcam_frame *frame) {
  FrameBuffer *buffer = request->findBuffer(stream_);
  const StreamConfiguration &sc = config_->at(0);
  const PlanePtrs &p = planes_[buffer];
  const bool nv12 = sc.pixelFormat == formats::NV12;
  const size_t luma = (size_t)sc.stride * sc.size.height;
  *frame = cap__lcam_frame{};
  frame->width = (int)sc.size.width;
  frame->height = (int)sc.size.height;
  frame->y_stride = (int)sc.stride;
  frame->uv_stride = nv12 ? (int)sc.stride : (int)sc.stride / 2;
  frame->nv12 = nv12;
  frame->y = p.p[0];
  // One plane in the FrameBuffer: the chroma follows the luma.
  frame->u = p.p[1] ? p.p[1] : p.p[0] + luma;
  frame->v = nv12 ? nullptr
             : p.p[2] ? p.p[2]
                      : frame->u + (size_t)frame->uv_stride * (sc.size.height / 2);
  const FrameMetadata &md = buffer->metadata();
  frame->timestamp_ns = (int64_t)md.timestamp;
  frame->sequence = md.sequence;

  const ControlList &meta = request->metadata();
  if (const auto e = meta.get(controls::ExposureTime)) frame->exposure_us = *e;
  if (const auto g = meta.get(controls::AnalogueGain)) frame->gain = *g;
  if (const auto c = meta.get(controls::ColourGains)) {
    frame->colour_gains[0] = (*c)[0];
    frame->colour_gains[1] = (*c)[1];
  }
#if CAP_LCAM_AT_LEAST(0, 5, 0)
  const auto state = meta.get(controls::AeState);
  frame->ae_converged = state && *state == controls::AeStateConverged;
#else
  const auto locked = meta.get(controls::AeLocked);
  frame->ae_converged = locked && *locked;
#endif
#if CAP_LCAM_AT_LEAST(0, 5, 2)
  if (md.status == FrameMetadata::FrameStartup) frame->ae_converged = false;
#endif
}

static bool usable(Request *request, Stream *stream) {
  FrameBuffer *buffer = request->findBuffer(stream);
  if (!buffer || request->status() != Request::RequestComplete) return false;
  const auto status = buffer->metadata().status;
#if CAP_LCAM_AT_LEAST(0, 5, 2)
  if (status == FrameMetadata::FrameStartup) return true;
#endif
  return status == FrameMetadata::FrameSuccess;
}

int Cam::next(int timeout_ms, cap__lcam_frame *frame, char *msg, size_t len) {
  if (held_) {
    requeue(held_);
    held_ = nullptr;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::deque<Request *> ready;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cond_.wait_until(lock, deadline,
                       [this] { return lost_ || !completed_.empty(); });
      if (lost_) {
        set_msg(msg, len, "camera %s was disconnected",
                model_of(*camera_).c_str());
        return CAP__LCAM_DISCONNECTED;
      }
      if (completed_.empty()) {
        set_msg(msg, len, "camera %s sent no frame within %d ms",
                model_of(*camera_).c_str(), timeout_ms);
        return CAP__LCAM_TIMEOUT;
      }
      ready.swap(completed_);
    }
    // The newest frame goes out; older ones go straight back to the
    // camera (the sequence gap tells the C side they were dropped).
    Request *newest = ready.back();
    ready.pop_back();
    for (Request *older : ready) requeue(older);
    if (!usable(newest, stream_)) {
      requeue(newest);
      continue;
    }
    fillFrame(newest, frame);
    held_ = newest;
    return CAP__LCAM_OK;
  }
}

void Cam::describe(char *model, size_t model_len, char *format,
                   size_t format_len, int *width, int *height,
                   double *fps) const {
  const StreamConfiguration &sc = config_->at(0);
  set_msg(model, model_len, "%s", model_of(*camera_).c_str());
  set_msg(format, format_len, "%s", sc.pixelFormat.toString().c_str());
  *width = (int)sc.size.width;
  *height = (int)sc.size.height;
  *fps = fps_;
}

void Cam::shutdown() {
  if (camera_) {
    if (started_) camera_->stop();
    started_ = false;
    camera_->requestCompleted.disconnect(this);
    camera_->disconnected.disconnect(this);
  }
  held_ = nullptr;
  completed_.clear();
  requests_.clear();
  for (const Mapping &m : mappings_) munmap(m.addr, m.len);
  mappings_.clear();
  planes_.clear();
  allocator_.reset();
  config_.reset();
  if (camera_ && acquired_) camera_->release();
  acquired_ = false;
  camera_.reset();
  if (manager_) manager_->stop();
  manager_.reset();
}

// ---- listing ----

std::string modes_of(Camera &camera) {
  std::string out;
  std::vector<StreamRole> roles{StreamRole::Viewfinder};
  std::unique_ptr<CameraConfiguration> config =
      camera.generateConfiguration(roles);
  if (config && !config->empty()) {
    const SizeRange range = config->at(0).formats().range(formats::YUV420);
    if (range.max.width > 0)
      out += "YUV420 " + range.min.toString() + " to " +
             range.max.toString();
  }
  std::vector<StreamRole> raw{StreamRole::Raw};
  config = camera.generateConfiguration(raw);
  if (config && !config->empty()) {
    const StreamFormats &formats = config->at(0).formats();
    std::vector<Size> sizes;
    for (const PixelFormat &f : formats.pixelformats())
      for (const Size &s : formats.sizes(f))
        if (std::find(sizes.begin(), sizes.end(), s) == sizes.end())
          sizes.push_back(s);
    std::sort(sizes.begin(), sizes.end());
    if (!sizes.empty()) out += "; sensor modes";
    for (const Size &s : sizes) out += " " + s.toString();
  }
  return out.empty() ? "modes unknown" : out;
}

int list_cameras(FILE *out, char *msg, size_t len) {
  quiet_libcamera_log();
  CameraManager manager;
  int ret = manager.start();
  if (ret < 0) {
    set_msg(msg, len, "libcamera does not start: %s", strerror(-ret));
    return CAP__LCAM_ERROR;
  }
  int index = 0;
  for (const std::shared_ptr<Camera> &camera : manager.cameras()) {
    fprintf(out, "libcamera:%d  %s  id %s\n    %s\n", index++,
            model_of(*camera).c_str(), camera->id().c_str(),
            modes_of(*camera).c_str());
  }
  manager.stop();
  return index;
}

} // namespace

// ---- the C face ----

extern "C" {

static int shim_open(void *ctx, const cap__lcam_config *cfg, void **cam,
                     char *msg, size_t len) {
  (void)ctx;
  *cam = nullptr;
  try {
    auto c = std::make_unique<Cam>();
    int rc = c->open(*cfg, msg, len);
    if (rc == CAP__LCAM_OK) *cam = c.release();
    return rc;
  } catch (const std::exception &e) {
    set_msg(msg, len, "libcamera: %s", e.what());
  } catch (...) {
    set_msg(msg, len, "libcamera: unknown failure");
  }
  return CAP__LCAM_ERROR;
}

static void shim_describe(void *cam, char *model, size_t model_len,
                          char *format, size_t format_len, int *width,
                          int *height, double *fps) {
  try {
    static_cast<Cam *>(cam)->describe(model, model_len, format, format_len,
                                      width, height, fps);
  } catch (...) {
    set_msg(model, model_len, "libcamera camera");
  }
}

static int shim_next(void *cam, int timeout_ms, cap__lcam_frame *frame,
                     char *msg, size_t len) {
  try {
    return static_cast<Cam *>(cam)->next(timeout_ms, frame, msg, len);
  } catch (...) {
    set_msg(msg, len, "libcamera: failure while waiting for a frame");
  }
  return CAP__LCAM_ERROR;
}

static int shim_set_lock(void *cam, const cap__lcam_lock *lock, char *msg,
                         size_t len) {
  try {
    static_cast<Cam *>(cam)->setLock(lock);
    return CAP__LCAM_OK;
  } catch (...) {
    set_msg(msg, len, "libcamera: cannot set exposure controls");
  }
  return CAP__LCAM_ERROR;
}

static void shim_close(void *cam) {
  try {
    delete static_cast<Cam *>(cam);
  } catch (...) {
  }
}

static int shim_list(void *ctx, FILE *out, char *msg, size_t len) {
  (void)ctx;
  try {
    return list_cameras(out, msg, len);
  } catch (...) {
    set_msg(msg, len, "libcamera: failure while listing cameras");
  }
  return CAP__LCAM_ERROR;
}

const cap__lcam_ops *cap__lcam_real_ops(void) {
  static const cap__lcam_ops ops = {nullptr,       shim_open, shim_describe,
                                    shim_next,     shim_set_lock,
                                    shim_close,    shim_list};
  return &ops;
}

const char *cap__lcam_built_version(void) {
  return CAP_LCAM_STR(LIBCAMERA_VERSION_MAJOR) "." CAP_LCAM_STR(
      LIBCAMERA_VERSION_MINOR) "." CAP_LCAM_STR(LIBCAMERA_VERSION_PATCH);
}

} // extern "C"
