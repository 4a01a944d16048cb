// An include guard and a standard header before LibTorch (through model.h).
#ifndef PROJECT_GUARDED_H
#define PROJECT_GUARDED_H

#include <vector>
#include "model.h"

inline std::vector<int> ensemble_sizes() { return {1, 2, 3}; }

#endif
