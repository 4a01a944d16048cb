// Mock of OpenCV's <opencv2/opencv.hpp> for fast lit tests: cv::Mat with the
// real names (a reference-counted image handle: copies share the pixels,
// clone() copies them, `m(roi)` is a region of m's pixels, `Mat(rows, cols,
// type, data)` wraps memory it does not own) and the few functions the tests
// call. Keep the real namespaces; add what you need.
#pragma once

#include <cstddef>
#include <string>

#define CV_8UC3 16
#define CV_32FC3 21

namespace cv {
typedef unsigned char uchar;

struct Size {
  Size(int width, int height) {}
};
struct Rect {
  Rect(int x, int y, int width, int height) {}
};

class Mat {
public:
  Mat() {}
  Mat(int rows, int cols, int type) {}
  Mat(int rows, int cols, int type, void *data, size_t step = 0) {}
  Mat(const Mat &m, const Rect &roi) {}
  Mat(const Mat &) = default;
  Mat &operator=(const Mat &) = default;
  Mat clone() const { return *this; }
  Mat operator()(const Rect &roi) const { return *this; }
  uchar *ptr(int row = 0) { return data; }
  template <typename T> T *ptr(int row = 0) { return nullptr; }
  bool isContinuous() const { return true; }
  int channels() const { return 3; }
  void convertTo(Mat &dst, int type, double alpha = 1, double beta = 0) const {}
  static Mat zeros(int rows, int cols, int type) { return Mat(rows, cols, type); }

  int rows = 0;
  int cols = 0;
  uchar *data = nullptr;
};

enum ColorConversionCodes { COLOR_BGR2RGB = 4 };

Mat imread(const std::string &filename, int flags = 1);
void resize(const Mat &src, Mat &dst, Size size);
void cvtColor(const Mat &src, Mat &dst, int code);
} // namespace cv

// --- wt-stacked additions ---
// torch-stacked-samples-vary-in-size: reading images of any size.
#include <vector>
namespace cv {
enum ImreadModes { IMREAD_UNCHANGED = -1, IMREAD_GRAYSCALE = 0, IMREAD_COLOR = 1 };
Mat imdecode(const std::vector<uchar> &buf, int flags);
void GaussianBlur(const Mat &src, Mat &dst, Size ksize, double sigmaX);
} // namespace cv
