// cvw section 3: video files through OpenCV's VideoCapture and VideoWriter
// (for capture/'s `video:FILE` source and its test fixtures).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "cvw_internal.hpp"

struct cvw_video {
  cv::VideoCapture capture;
  cv::Mat frame; // decoded BGR frame, reused
  bool have_frame = false; // frame holds the first frame, not yet handed out
  std::string path;
};

struct cvw_video_writer {
  cv::VideoWriter writer;
  std::string path, tmp;
  int width, height;
};

namespace {

// Copies m (BGR or gray) into out as gray or RGB, reusing out's buffer
// when the shape fits.
tp_status to_image(const cv::Mat &m, int channels, tp_image *out,
                   tp_error *err) {
  if (!out->data || out->width != m.cols || out->height != m.rows ||
      out->channels != channels) {
    tp_image_free(out);
    tp_status st = tp_image_alloc(out, m.cols, m.rows, channels);
    if (st != TP_OK) return tp_error_set(err, st, "video: out of memory");
  }
  cv::Mat dst = cvw__mat_view(out);
  if (m.channels() == 1) {
    if (channels == 1) m.copyTo(dst);
    else cv::cvtColor(m, dst, cv::COLOR_GRAY2RGB);
  } else {
    cv::cvtColor(m, dst, channels == 1 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGR2RGB);
  }
  return TP_OK;
}

} // namespace

extern "C" tp_status cvw_video_create(const char *path, cvw_video **out,
                                      tp_error *err) {
  *out = nullptr;
  return cvw__guard(err, path, [&]() -> tp_status {
    struct stat st;
    if (stat(path, &st) != 0)
      return tp_error_set(err, TP_ERR_NOTFOUND, "no video file %s", path);
    if (!S_ISREG(st.st_mode))
      return tp_error_set(err, TP_ERR_FORMAT, "%s is not a video file", path);
    // FFmpeg's own log would add lines to teppich's one-line errors; a
    // user who wants it sets the variable themselves.
    setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
    auto video = std::make_unique<cvw_video>();
    video->path = path;
    // CAP_ANY: FFmpeg when OpenCV has it, its own MJPEG reader otherwise.
    if (!video->capture.open(path, cv::CAP_ANY) || !video->capture.isOpened())
      return tp_error_set(err, TP_ERR_FORMAT,
                          "%s: OpenCV cannot decode this video (try an "
                          "MJPEG .avi or a frame folder)",
                          path);
    // Some backends open anything that looks like an image; only a first
    // decoded frame proves this is a video we can read.
    if (!video->capture.read(video->frame) || video->frame.empty())
      return tp_error_set(err, TP_ERR_FORMAT,
                          "%s: no frame can be decoded from this video",
                          path);
    video->have_frame = true;
    *out = video.release();
    return TP_OK;
  });
}

extern "C" void cvw_video_destroy(cvw_video *video) {
  try {
    delete video;
  } catch (...) {
  }
}

extern "C" double cvw_video_fps(const cvw_video *video) {
  try {
    double fps = video->capture.get(cv::CAP_PROP_FPS);
    return fps > 0 && fps < 1000 ? fps : 0;
  } catch (...) {
    return 0;
  }
}

extern "C" tp_status cvw_video_read(cvw_video *video, int channels,
                                    tp_image *out, tp_error *err) {
  return cvw__guard(err, video->path.c_str(), [&]() -> tp_status {
    if (channels != 1 && channels != 3)
      return tp_error_set(err, TP_ERR_INVALID, "video: channels must be 1 or 3");
    bool have = video->have_frame || video->capture.read(video->frame);
    video->have_frame = false;
    if (!have || video->frame.empty())
      return tp_error_set(err, TP_ERR_NOTFOUND, "%s: end of video",
                          video->path.c_str());
    if (video->frame.depth() != CV_8U)
      return tp_error_set(err, TP_ERR_FORMAT, "%s: frames are not 8-bit",
                          video->path.c_str());
    return to_image(video->frame, channels, out, err);
  });
}

extern "C" tp_status cvw_video_writer_create(const char *path, double fps,
                                             int width, int height,
                                             cvw_video_writer **out,
                                             tp_error *err) {
  *out = nullptr;
  return cvw__guard(err, path, [&]() -> tp_status {
    if (width <= 0 || height <= 0 || !(fps > 0))
      return tp_error_set(err, TP_ERR_INVALID, "%s: bad video size or rate",
                          path);
    auto w = std::make_unique<cvw_video_writer>();
    w->path = path;
    w->tmp = std::string(path) + ".tmp-" + std::to_string(getpid()) + ".avi";
    w->width = width;
    w->height = height;
    if (!w->writer.open(w->tmp, cv::CAP_OPENCV_MJPEG,
                        cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps,
                        cv::Size(width, height), true))
      return tp_error_set(err, TP_ERR_IO, "%s: cannot write a video there",
                          path);
    *out = w.release();
    return TP_OK;
  });
}

extern "C" tp_status cvw_video_writer_write(cvw_video_writer *w,
                                            const tp_image *img,
                                            tp_error *err) {
  return cvw__guard(err, w->path.c_str(), [&]() -> tp_status {
    if (!cvw__image_valid(img) || img->width != w->width ||
        img->height != w->height || img->channels == 4)
      return tp_error_set(err, TP_ERR_INVALID,
                          "%s: frame must be %dx%d gray or RGB",
                          w->path.c_str(), w->width, w->height);
    cv::Mat bgr;
    cv::cvtColor(cvw__mat_view(img), bgr,
                 img->channels == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_RGB2BGR);
    w->writer.write(bgr);
    return TP_OK;
  });
}

extern "C" tp_status cvw_video_writer_close(cvw_video_writer *w,
                                            tp_error *err) {
  if (!w) return TP_OK;
  tp_status st = cvw__guard(err, w->path.c_str(), [&]() -> tp_status {
    w->writer.release();
    if (rename(w->tmp.c_str(), w->path.c_str()) != 0)
      return tp_error_set(err, TP_ERR_IO, "%s: cannot move the video into place",
                          w->path.c_str());
    return TP_OK;
  });
  if (st != TP_OK) remove(w->tmp.c_str());
  try {
    delete w;
  } catch (...) {
  }
  return st;
}
